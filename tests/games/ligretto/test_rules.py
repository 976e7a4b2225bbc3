"""Ligretto rules L1-L16 and G0-G2, one or more tests per rule id, mostly on hand-crafted states."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from games.engine import IllegalAction
from games.ligretto import rules as R
from games.registry import rules_for

from .helpers import all_cards, build, check_invariants, view_cards, visible_cards

# A player whose visible cards fit nowhere, so hand-crafted states stay "playing".
IDLE = {"row": ["g7", "g8", "g9"], "stack": ["b7", "b8"], "hand": []}
# The same with the row variant on: not even his own row takes his stack top (L16).
VARIANT_IDLE = {"row": ["g7", "g8", "g9"], "stack": ["b8", "y4"], "hand": []}
# A player holding a 1 he never plays, so that no deadlock ends the round (L14).
KEEP = {"row": ["b1", "g8", "g9"], "stack": ["b7", "b8"], "hand": []}


def refuse(state, seat, action, code):
    """Assert the action is refused with `code` and the state is left exactly as it was."""
    before = R.dump(state)
    with pytest.raises(IllegalAction) as err:
        R.apply(state, seat, action)
    assert err.value.code == code, err.value.code
    assert err.value.message and err.value.message.endswith((".", "!"))
    assert R.dump(state) == before
    return err.value


def types(events):
    return [e["type"] for e in events]


# --------------------------------------------------------------------------- L1 players


def test_L1_it_accepts_exactly_two_for_mini_and_two_to_twelve_for_ligretto():
    assert R.check_options(2, None, "ligretto-mini") == {"rounds": 1, "row_variant": False}
    for seats in (1, 3):
        with pytest.raises(IllegalAction) as err:
            R.check_options(seats, None, "ligretto-mini")
        assert err.value.code == "invalid_seats"
    for seats in range(2, 13):
        assert R.check_options(seats, {}, "ligretto") == {
            "target": 99,
            "rounds": 10,
            "row_variant": False,
        }
    for seats in (0, 1, 13, True, "4"):
        with pytest.raises(IllegalAction) as err:
            R.new_match(seats, None, 1, preset="ligretto")
        assert err.value.code == "invalid_seats"


def test_L1_it_exposes_the_seat_limits_through_the_registry():
    assert (rules_for("ligretto-mini").min_seats, rules_for("ligretto-mini").max_seats) == (2, 2)
    assert (rules_for("ligretto").min_seats, rules_for("ligretto").max_seats) == (2, 12)


# --------------------------------------------------------------------------- L2-L5 the deal


@pytest.mark.parametrize("preset,seats", [("ligretto-mini", 2), ("ligretto", 2), ("ligretto", 7)])
def test_L2_it_deals_each_player_his_own_full_deck(preset, seats):
    state = R.new_match(seats, None, 3, preset=preset)
    check_invariants(state)
    colors = {
        "ligretto-mini": {"red", "green", "blue"},
        "ligretto": {"red", "yellow", "green", "blue"},
    }
    size = {"ligretto-mini": 27, "ligretto": 40}[preset]
    for seat in range(seats):
        mine = R.deck(preset, seat)
        assert len(mine) == len(set(mine)) == size
        assert {card.color for card in mine} == colors[preset]
        assert {card.value for card in mine} == set(range(1, R.TOP_VALUE[preset] + 1))
        p = state.players[seat]
        held = [x for slot in p.row for x in slot] + list(p.stack) + list(p.hand)
        assert all(card.owner == seat for card in held)


@pytest.mark.parametrize(
    "preset,seats,row",
    [("ligretto-mini", 2, 3), ("ligretto", 2, 5), ("ligretto", 3, 4)]
    + [("ligretto", n, 3) for n in range(4, 13)],
)
def test_L3_it_lays_out_the_row_size_for_the_player_count(preset, seats, row):
    state = R.new_match(seats, None, 11, preset=preset)
    view = R.player_view(state, 0)
    for t in view["tableaus"]:
        assert len(t["row"]) == row and t["row_depth"] == [1] * row
        assert all(card is not None for card in t["row"])


@pytest.mark.parametrize("preset,stack", [("ligretto-mini", 7), ("ligretto", 10)])
def test_L4_it_deals_a_face_up_stack_showing_only_its_top(preset, stack):
    state = R.new_match(2, None, 5, preset=preset)
    view = R.player_view(state, 0)
    for seat, t in enumerate(view["tableaus"]):
        assert t["stack_count"] == stack
        top = state.players[seat].stack[-1]
        assert t["stack_top"] == {"color": top.color, "value": top.value}


@pytest.mark.parametrize(
    "preset,seats,hand",
    [("ligretto-mini", 2, 17), ("ligretto", 2, 25), ("ligretto", 3, 26), ("ligretto", 4, 27)],
)
def test_L5_it_keeps_the_remaining_cards_face_down_in_hand(preset, seats, hand):
    state = R.new_match(seats, None, 9, preset=preset)
    for t in R.player_view(state, 0)["tableaus"]:
        assert t["hand_count"] == hand
        assert t["waste_count"] == 0 and t["waste_top"] is None


# --------------------------------------------------------------------------- L6 match end


def end_round_now(state, seat=0):
    """Finish the current round of a hand-crafted state by playing seat's last stack card."""
    new, events = R.apply(state, seat, {"type": "play", "from": "stack"})
    assert new.status == "round_over"
    return new, events


def test_L6_it_plays_one_round_of_mini_by_default_then_finishes_when_all_are_ready():
    state = build(
        [
            {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
            {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
        ],
        preset="ligretto-mini",
    )
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True
    assert R.player_view(state, 0)["status"] == "round_over"
    said = "Round 1 is over: seat 0 emptied their Ligretto stack. That was the last round."
    assert R.player_view(state, 1)["message"] == said
    state, events = R.apply(state, 1, {"type": "ready"})
    assert state.status == "round_over" and types(events) == ["player_ready"]
    assert R.player_view(state, None)["message"] == said  # it lasts through round_over
    assert R.legal_actions(state, 1) == [] and R.legal_actions(state, 0) == [{"type": "ready"}]
    state, events = R.apply(state, 0, {"type": "ready"})
    assert state.status == "finished"
    assert types(events) == ["player_ready", "match_finished"]
    assert events[-1]["winners"] == [0] and events[-1]["totals"] == [1, -2]
    view = R.player_view(state, 0)
    assert view["status"] == "finished" and view["legal"] == [] and view["winners"] == [0]
    assert (
        view["message"] == events[-1]["message"] == "The match is over: seat 0 wins with 1 point."
    )
    refuse(state, 0, {"type": "ready"}, "already_ready")
    refuse(state, 0, {"type": "flip"}, "round_over")


def test_L6_it_deals_the_next_round_until_the_fixed_number_of_rounds():
    state = build(
        [
            {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
            {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
        ],
        preset="ligretto-mini",
        options={"rounds": 2},
    )
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is False
    state, _ = R.apply(state, 0, {"type": "ready"})
    state, events = R.apply(state, 1, {"type": "ready"})
    assert "round_dealt" in types(events)
    assert state.round == 2 and state.status == "playing" and state.center == ()
    assert state.message is None  # a new deal clears the last round's message
    check_invariants(state)
    assert R.player_view(state, 0)["scores"] == [{"round": 1, "points": [1, -2]}]


def test_L6_it_finishes_ligretto_once_someone_reaches_the_target_at_a_round_end():
    players = [
        {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
        {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
    ]
    state = build(players, options={"target": 10}, scores=[[5, 3]])
    state, events = end_round_now(state)  # 5 + 1 = 6 < 10: the match goes on
    assert events[-1]["match_over"] is False
    state = build(players, options={"target": 10}, scores=[[9, 3]])
    state, events = end_round_now(state)  # 9 + 1 = 10 >= 10
    assert events[-1]["match_over"] is True and events[-1]["totals"] == [10, 1]
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert state.status == "finished" and events[-1]["winners"] == [0]


def test_L6_it_lets_equal_totals_share_the_win():
    players = [
        {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
        {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
    ]
    state = build(players, preset="ligretto-mini", scores=[[2, 5]], options={"rounds": 2})
    state, _ = end_round_now(state)  # totals 3 and 3
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert events[-1]["winners"] == [0, 1]
    assert events[-1]["message"] == "The match is over: seats 0 and 1 share the win with 3 points."


@pytest.mark.parametrize(
    "preset,options",
    [
        ("ligretto", {"colour": 1}),
        ("ligretto", {"rounds": 0}),
        ("ligretto", {"rounds": 51}),
        ("ligretto", {"rounds": True}),
        ("ligretto", {"rounds": "3"}),
        ("ligretto", {"rounds": 2.0}),
        ("ligretto", {"target": 0}),
        ("ligretto", {"target": False}),
        ("ligretto", {"target": "none"}),
        ("ligretto", {"target": 10_001}),
        ("ligretto", {"target": None, "rounds": None}),
        ("ligretto", {"row_variant": 1}),
        ("ligretto", ["rounds"]),
        ("ligretto-mini", {"target": 0}),
        ("ligretto-mini", {"rounds": -1}),
        ("ligretto-mini", {"best_of": 1}),
        ("ligretto-mini", {"best_of": 2}),
        ("ligretto-mini", {"best_of": 11}),
        ("ligretto-mini", {"best_of": True}),
        ("ligretto-mini", {"best_of": 3, "rounds": 0}),
        ("ligretto-mini", {"best_of": 3, "target": 0}),
        ("ligretto", {"best_of": 3}),
    ],
)
def test_L6_it_refuses_invalid_options(preset, options):
    with pytest.raises(IllegalAction) as err:
        R.check_options(2, options, preset)
    assert err.value.code == "invalid_options"


def test_L6_it_fills_option_defaults_and_keeps_its_own_output():
    assert R.check_options(4, {"rounds": 3}, "ligretto") == {
        "target": 99,
        "rounds": 3,
        "row_variant": False,
    }
    assert R.check_options(4, {"target": 50, "row_variant": True}, "ligretto") == {
        "target": 50,
        "rounds": 10,
        "row_variant": True,
    }
    assert R.check_options(2, {"rounds": 5, "row_variant": True}, "ligretto-mini") == {
        "rounds": 5,
        "row_variant": True,
    }
    for preset in ("ligretto", "ligretto-mini"):
        once = R.check_options(2, None, preset)
        assert R.check_options(2, once, preset) == once


def test_L6_it_says_clearly_why_options_are_refused():
    def why(options, preset="ligretto"):
        with pytest.raises(IllegalAction) as err:
            R.check_options(2, options, preset)
        return err.value.message

    assert why({"target": 0}) == (
        "target must be a whole number from 1 to 10000, or null for a fixed number of rounds."
    )
    assert why({"rounds": 51}) == "rounds must be a whole number from 1 to 50."
    assert why({"best_of": 4}, "ligretto-mini") == (
        "best_of must be an odd whole number from 3 to 9."
    )
    assert why({"best_of": 3}) == "Unknown option 'best_of'."
    assert why({"colour": 1}) == "Unknown option 'colour'."


def test_L6_mini_takes_a_target_with_at_most_10_rounds_or_best_of_an_odd_number():
    mini = "ligretto-mini"
    assert R.check_options(2, {"target": 30}, mini) == {
        "target": 30,
        "rounds": 10,
        "row_variant": False,
    }
    assert R.check_options(2, {"target": 30, "rounds": 4}, mini)["rounds"] == 4
    # Off (null) is the default and leaves the options as they always were.
    assert R.check_options(2, {"target": None}, mini) == {"rounds": 1, "row_variant": False}
    assert R.check_options(2, {"best_of": 3}, mini) == {
        "rounds": 3,
        "best_of": 3,
        "row_variant": False,
    }
    # A longer limit lets drawn rounds be replayed; a target may end it sooner.
    assert R.check_options(2, {"best_of": 3, "rounds": 5, "target": 40}, mini) == {
        "rounds": 5,
        "target": 40,
        "best_of": 3,
        "row_variant": False,
    }
    for options in ({"target": 30}, {"best_of": 3}, {"best_of": 3, "rounds": 5, "target": 4}):
        once = R.check_options(2, options, mini)
        assert R.check_options(2, once, mini) == once


MINI_PLAYERS = [
    {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
    {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
]


def test_L6_mini_to_a_target_ends_at_the_round_a_total_reaches_it():
    options = {"target": 10}
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[5, 3]])
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is False and "match_winners" not in R.player_view(state, 0)
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[9, 3]])
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True
    assert R.player_view(state, 1)["match_winners"] == [0]


def test_L6_mini_best_of_three_ends_once_a_seat_has_won_two_rounds():
    # Seat 0 won round 1 (4 > 2); ending round 2 (1 against -2) is its second win.
    options = {"best_of": 3}
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[4, 2]])
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True
    view = R.player_view(state, 1)
    assert view["status"] == "round_over" and view["round_wins"] == [2, 0]
    # The winner is known the moment the last round ends, before anyone is ready.
    assert view["match_winners"] == [0]
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert state.status == "finished" and events[-1]["winners"] == [0]
    assert events[-1]["message"] == "The match is over: seat 0 wins with 2 rounds won."


def test_L6_mini_best_of_three_goes_on_at_one_win_each():
    options = {"best_of": 3}
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[2, 9]])
    state, events = end_round_now(state)  # one round each: a third is dealt
    assert events[-1]["match_over"] is False
    assert "match_winners" not in R.player_view(state, 0)
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert state.round == 2 and state.status == "playing"


def test_L6_mini_best_of_three_a_drawn_round_goes_to_nobody_and_totals_break_a_tie():
    # Round 1 drawn (3-3), round 2 to seat 1, round 3 to seat 0 (1 against -2): one round
    # each after three rounds, so the higher total wins, and equal totals share the win.
    options = {"best_of": 3}
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[3, 3], [2, 5]])
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True  # three rounds played: best of 3 is over
    view = R.player_view(state, 0)
    assert view["round_wins"] == [1, 1] and view["totals"] == [6, 6]
    assert view["match_winners"] == [0, 1]  # equal rounds won, equal totals: shared
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[3, 3], [1, 5]])
    state, _ = end_round_now(state)
    assert R.player_view(state, 0)["round_wins"] == [1, 1]
    assert R.player_view(state, 0)["match_winners"] == [1]  # totals 5 against 6
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert events[-1]["message"] == "The match is over: seat 1 wins with 6 points."


def test_L6_it_names_the_match_winner_in_the_last_rounds_view_for_every_preset():
    state = build(MINI_PLAYERS, preset="ligretto-mini")
    state, _ = end_round_now(state)
    assert R.player_view(state, None)["match_winners"] == [0]
    state = build(MINI_PLAYERS, options={"rounds": 2}, scores=[[0, 5]])
    state, _ = end_round_now(state)  # totals 1 and 3
    assert R.player_views(state, [0, None])[0]["match_winners"] == [1]


def test_L6_plus_it_combines_a_target_and_a_round_limit_whichever_comes_first():
    assert R.check_options(3, {"target": 40, "rounds": 4}, "ligretto") == {
        "target": 40,
        "rounds": 4,
        "row_variant": False,
    }
    players = [
        {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
        {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
    ]
    options = {"target": 40, "rounds": 4}
    # Round 2 of 4, nobody at 40: the match goes on.
    state = build(players, options=options, scores=[[5, 3]], round_no=2)
    assert end_round_now(state)[1][-1]["match_over"] is False
    # The target reached before the limit ends it...
    state = build(players, options=options, scores=[[39, 3]], round_no=2)
    assert end_round_now(state)[1][-1]["match_over"] is True
    # ...and so does the limit, with every total far below the target.
    state = build(players, options=options, scores=[[5, 3]] * 3, round_no=4)
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True and events[-1]["totals"] == [16, 7]
    assert state.message.endswith("That was the last round.")
    for seat in (0, 1):
        state, events = R.apply(state, seat, {"type": "ready"})
    assert state.status == "finished" and events[-1]["winners"] == [0]


def test_L6_plus_it_plays_a_fixed_number_of_rounds_without_a_target():
    players = [
        {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
        {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
    ]
    options = {"target": None, "rounds": 3}
    assert R.check_options(2, options, "ligretto") == {**options, "row_variant": False}
    # 500 points after round 2 of 3 do not end a match without a target.
    state = build(players, options=options, scores=[[500, 0]], round_no=2)
    assert end_round_now(state)[1][-1]["match_over"] is False
    state = build(players, options=options, scores=[[0, 0], [0, 0]], round_no=3)
    assert end_round_now(state)[1][-1]["match_over"] is True


def test_L6_plus_ligretto_defaults_end_by_round_10_even_when_nobody_reaches_99():
    state = build(
        [
            {"row": ["r5", "g5", "b5"], "stack": ["r1"]},
            {"row": ["r6", "g6", "b6"], "stack": ["b9"]},
        ],
        scores=[[-5, -9]] * 9,
        round_no=10,
    )
    assert state.options == {"target": 99, "rounds": 10, "row_variant": False}
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True and events[-1]["totals"] == [-44, -83]


def test_L6_mini_the_api_schema_offers_exactly_the_best_of_the_rules_take():
    from games.ligretto.api_fields import MiniOptions

    schema = MiniOptions.model_json_schema()["properties"]["best_of"]
    offered = next(s["enum"] for s in schema["anyOf"] if "enum" in s)
    taken = [n for n in range(R.MAX_BEST_OF + 2) if n % 2 and n >= 3 and n <= R.MAX_BEST_OF]
    assert offered == taken


def test_L6_mini_it_describes_best_of_in_words():
    options = R.check_options(2, {"best_of": 3}, "ligretto-mini")
    assert str(R.describe_end(options)) == ("Best of 3: the first to win 2 rounds wins the match.")
    options = R.check_options(2, {"best_of": 3, "rounds": 5, "target": 40}, "ligretto-mini")
    assert str(R.describe_end(options)) == (
        "Best of 3: the first to win 2 rounds wins the match. Also: First to 40 points, or after "
        "round 5, whichever comes first."
    )


def test_L6_mini_best_of_three_with_a_target_ends_at_whichever_comes_first():
    # One round each, but the target is reached: the match is over, and rounds won are equal,
    # so the higher total wins.
    options = {"best_of": 3, "target": 10}
    state = build(MINI_PLAYERS, preset="ligretto-mini", options=options, scores=[[2, 12]])
    state, events = end_round_now(state)
    assert events[-1]["match_over"] is True
    view = R.player_view(state, 0)
    assert view["round_wins"] == [1, 1] and view["match_winners"] == [1]


def test_L6_plus_it_describes_how_the_match_ends_in_words():
    def says(options, preset="ligretto", seats=2):
        return R.describe_end(R.check_options(seats, options, preset))

    assert says({}) == "First to 99 points, or after round 10, whichever comes first."
    assert says({"target": 50, "rounds": 20}) == (
        "First to 50 points, or after round 20, whichever comes first."
    )
    assert says({"target": None, "rounds": 5}) == "A fixed 5 rounds; the highest total wins."
    # One point is singular (ngettext on the target), in every language's own plural forms.
    assert says({"target": 1, "rounds": 3}, "ligretto-mini") == (
        "First to 1 point, or after round 3, whichever comes first."
    )
    assert says({"rounds": 1}) == "One round; the highest score wins."
    assert says({}, "ligretto-mini") == "One round; the highest score wins."
    assert says({"rounds": 3}, "ligretto-mini") == "A fixed 3 rounds; the highest total wins."


# --------------------------------------------------------------------------- L7 simultaneous


def test_L7_it_lets_any_seat_act_at_any_time_without_turns():
    state = build(
        [
            {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y3", "r3", "g1"]},
            {"row": ["y1", "g6", "b6"], "stack": ["b8", "b9"], "hand": ["y3", "r3", "g1"]},
        ]
    )
    for seat in (1, 0, 0, 1):
        assert R.legal_actions(state, seat)
        state, _ = R.apply(state, seat, R.legal_actions(state, seat)[0])
    assert state.status == "playing"  # the engine never has a "starting" state (L7+)


# --------------------------------------------------------------------------- L8 what may be played


def test_L8_it_plays_a_row_card_the_stack_top_or_the_waste_top_to_the_centre():
    state = build(
        [
            {
                "row": ["r1", "g5", "b5"],
                "stack": ["b8", "y1"],
                "waste": ["g9", "b1"],
                "hand": ["g8"],
            },
            IDLE,
        ]
    )
    legal = R.legal_actions(state, 0)
    assert {"type": "play", "from": "row", "index": 0} in legal
    assert {"type": "play", "from": "stack"} in legal
    assert {"type": "play", "from": "waste"} in legal
    state, events = R.apply(state, 0, {"type": "play", "from": "waste"})
    assert events[0] == {
        "type": "card_played",
        "seat": 0,
        "from": "waste",
        "pile": 0,
        "card": {"color": "blue", "value": 1},
    }
    assert R.player_view(state, 1)["tableaus"][0]["waste_top"] == {"color": "green", "value": 9}


def test_L8_it_refuses_cards_that_are_not_face_up_tops():
    state = build([{"row": ["r5", "g5", "b5"], "stack": ["r1", "b8"], "hand": ["y1"]}, IDLE])
    refuse(state, 0, {"type": "play", "from": "hand"}, "bad_action")
    refuse(state, 0, {"type": "play", "from": "stack"}, "does_not_fit")  # r1 lies below b8
    refuse(state, 0, {"type": "play", "from": "waste"}, "empty_waste")


# --------------------------------------------------------------------------- L9 centre piles


def test_L9_it_starts_a_new_pile_with_every_one_even_when_a_pile_is_named():
    state = build([{"row": ["r1", "g1", "b5"], "stack": ["b8", "b9"]}, IDLE], center=[["r1", "r2"]])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0, "pile": 0})
    assert events[0]["pile"] == 1
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 1})
    assert events[0]["pile"] == 2
    center = R.player_view(state, None)["center"]
    assert [(p["pile"], p["color"], p["top"], p["count"]) for p in center] == [
        (0, "red", 2, 2),
        (1, "red", 1, 1),
        (2, "green", 1, 1),
    ]


def test_L9_it_takes_only_the_same_colour_exactly_one_higher_on_anyones_pile():
    state = build(
        [{"row": ["r3", "g3", "r4"], "stack": ["b8", "b9"]}, IDLE],
        center=[["r1@1", "r2@1"], ["g1@1"]],
    )
    refuse(state, 0, {"type": "play", "from": "row", "index": 2}, "does_not_fit")
    refuse(state, 0, {"type": "play", "from": "row", "index": 1}, "does_not_fit")
    refuse(state, 0, {"type": "play", "from": "row", "index": 1, "pile": 0}, "does_not_fit")
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert events[0]["pile"] == 0
    assert R.player_view(state, 0)["center"][0]["top"] == 3


def test_L9_it_closes_a_pile_at_the_top_value_and_keeps_it_listed():
    state = build(
        [{"row": ["b10", "g5", "y5"], "stack": ["r7", "r8"]}, IDLE],
        center=[["b" + str(v) for v in range(1, 10)]],
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events)[:2] == ["card_played", "pile_closed"]
    pile = R.player_view(state, 0)["center"][0]
    # The top card's owner is public; so are all the pile's owners once the round is over.
    assert pile == {
        "pile": 0,
        "color": "blue",
        "top": 10,
        "count": 10,
        "closed": True,
        "owner": 0,
        **({"owners": [0] * 10} if state.status != "playing" else {}),
    }
    mini = build(
        [
            {"row": ["r9", "g5", "b5"], "stack": ["b7", "b8"]},
            {"row": ["g7", "g8", "g9"], "stack": ["b7"]},
        ],
        center=[["r" + str(v) for v in range(1, 9)]],
        preset="ligretto-mini",
    )
    mini, events = R.apply(mini, 0, {"type": "play", "from": "row", "index": 0})
    assert "pile_closed" in types(events) and mini.center[0].closed


def test_L9_it_allows_several_piles_of_one_colour_and_picks_the_lowest_that_fits():
    state = build(
        [{"row": ["r3", "g5", "b5"], "stack": ["b8", "b9"]}, IDLE],
        center=[["r1", "r2", "r3"], ["r1@1", "r2@1"], ["r1@1", "r2@1"]],
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert events[0]["pile"] == 1


# --------------------------------------------------------------------------- L10 refill


def test_L10_it_refills_an_emptied_row_slot_from_the_stack_top_at_once():
    state = build([{"row": ["g5", "r1", "b5"], "stack": ["b8", "y4", "y7"]}, KEEP])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 1})
    assert types(events) == ["card_played", "row_refilled"]
    assert events[1] == {
        "type": "row_refilled",
        "seat": 0,
        "index": 1,
        "card": {"color": "yellow", "value": 7},
    }
    t = R.player_view(state, 0)["tableaus"][0]
    assert t["row"][1] == {"color": "yellow", "value": 7}
    assert t["stack_top"] == {"color": "yellow", "value": 4} and t["stack_count"] == 2


def test_L10_it_leaves_other_slots_and_stack_alone_on_stack_and_waste_plays():
    state = build([{"row": ["g5", "r6", "b5"], "stack": ["b8", "y1"], "waste": ["r1"]}, KEEP])
    state, events = R.apply(state, 0, {"type": "play", "from": "waste"})
    assert types(events) == ["card_played"]
    state, events = R.apply(state, 0, {"type": "play", "from": "stack"})
    assert types(events) == ["card_played"]
    assert [x.value for slot in state.players[0].row for x in slot] == [5, 6, 5]


# --------------------------------------------------------------------------- L11 hand


def test_L11_it_flips_three_cards_in_order_showing_the_third():
    state = build(
        [{"row": ["g5", "r6", "b5"], "stack": ["b8", "b9"], "hand": ["r7", "y9", "g8", "y6"]}, KEEP]
    )
    state, events = R.apply(state, 0, {"type": "flip"})
    assert events == [
        {"type": "hand_flipped", "seat": 0, "count": 3, "waste_top": {"color": "green", "value": 8}}
    ]
    t = R.player_view(state, 0)["tableaus"][0]
    assert (t["hand_count"], t["waste_count"]) == (1, 3)
    assert t["waste_top"] == {"color": "green", "value": 8}


def test_L11_it_flips_all_that_are_left_when_fewer_than_three():
    state = build(
        [
            {
                "row": ["g5", "r6", "b5"],
                "stack": ["b8", "b9"],
                "hand": ["r7", "y9"],
                "waste": ["y8"],
            },
            KEEP,
        ]
    )
    state, events = R.apply(state, 0, {"type": "flip"})
    assert events[0]["count"] == 2 and events[0]["waste_top"] == {"color": "yellow", "value": 9}
    assert state.players[0].hand == () and len(state.players[0].waste) == 3


def test_L11_it_turns_the_whole_waste_over_unshuffled_then_flips_three_in_one_action():
    waste = ["r7", "y9", "g8", "y6", "b6"]  # bottom .. top
    state = build(
        [{"row": ["g5", "r6", "b5"], "stack": ["b8", "b9"], "hand": [], "waste": waste}, KEEP]
    )
    state, events = R.apply(state, 0, {"type": "flip"})
    assert types(events) == ["waste_turned", "hand_flipped"]
    assert events[0]["count"] == 5
    # The first card turned off the old hand is again the first off the new one.
    assert events[1]["waste_top"] == {"color": "green", "value": 8}
    p = state.players[0]
    assert [x.value for x in p.hand] == [6, 6] and [x.value for x in p.waste] == [7, 9, 8]


def test_L11_it_refuses_a_flip_with_nothing_in_hand_or_waste():
    state = build([{"row": ["g5", "r6", "b5"], "stack": ["b8", "b9"]}, IDLE])
    refuse(state, 0, {"type": "flip"}, "nothing_to_flip")
    assert {"type": "flip"} not in R.legal_actions(state, 0)


def test_L11_it_plays_only_the_waste_top():
    state = build(
        [
            {
                "row": ["g5", "r6", "b5"],
                "stack": ["b8", "b9"],
                "hand": ["y2"],
                "waste": ["r1", "g9"],
            },
            IDLE,
        ]
    )
    refuse(state, 0, {"type": "play", "from": "waste"}, "does_not_fit")


# --------------------------------------------------------------------------- L12 races


def race_state():
    return build(
        [
            {"row": ["r4", "g5", "b5"], "stack": ["b8", "b9"]},
            {"row": ["r4", "g6", "b6"], "stack": ["b8", "b9"]},
            KEEP,
        ],
        center=[["r1@2", "r2@2", "r3@2"], ["y1@2"]],
    )


def test_L12_it_refuses_the_slower_of_two_plays_on_the_same_pile_as_too_slow():
    state = race_state()
    state, _ = R.apply(state, 0, {"type": "play", "from": "row", "index": 0, "pile": 0})
    refuse(state, 1, {"type": "play", "from": "row", "index": 0, "pile": 0}, "too_slow")
    lost = refuse(state, 1, {"type": "play", "from": "row", "index": 0}, "too_slow")
    assert state.players[1].row[0][0].value == 4  # the card stays where it was
    # It names the card that lost, as a parameter of its own (the site words it).
    assert lost.message == "Too slow: red 4 was taken."
    assert lost.params["card"].params["colour"].context == "card colour"
    check_cards_conserved(state)


def check_cards_conserved(state):
    seen = Counter()
    for p in state.players:
        for slot in p.row:
            seen.update(slot)
        seen.update(p.stack + p.hand + p.waste)
    for pile in state.center:
        seen.update(pile.cards)
    assert all(n == 1 for n in seen.values())


def test_L12_it_sends_a_play_for_a_taken_pile_to_the_lowest_pile_that_fits():
    state = build(
        [
            {"row": ["r4", "g5", "b5"], "stack": ["b8", "b9"]},
            {"row": ["r4", "g6", "b6"], "stack": ["b8", "b9"]},
            IDLE,
        ],
        center=[["y1@2"], ["r1@2", "r2@2", "r3@2"], ["r1@2", "r2@2", "r3@2"]],
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0, "pile": 2})
    assert events[0]["pile"] == 2 and "asked_pile" not in events[0]
    state, events = R.apply(state, 1, {"type": "play", "from": "row", "index": 0, "pile": 2})
    assert events[0]["pile"] == 1 and events[0]["asked_pile"] == 2


def test_L12_it_refuses_a_named_pile_of_another_colour_as_does_not_fit_and_an_unknown_one():
    state = race_state()
    refuse(state, 0, {"type": "play", "from": "row", "index": 1, "pile": 0}, "does_not_fit")
    refuse(state, 0, {"type": "play", "from": "row", "index": 0, "pile": 7}, "no_such_pile")
    refuse(state, 0, {"type": "play", "from": "row", "index": 0, "pile": -1}, "no_such_pile")


def test_L12_it_lists_legal_plays_without_piles():
    for action in R.legal_actions(race_state(), 0):
        assert "pile" not in action


# --------------------------------------------------------------------------- L13 round end


def test_L13_it_ends_the_round_the_instant_a_stack_play_empties_the_stack():
    state = build(
        [
            {"row": ["g5", "r6", "b5"], "stack": ["y1"], "hand": ["r1"]},
            {"row": ["r1", "g6", "b6"], "stack": ["b9"]},
        ]
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "stack"})
    assert state.status == "round_over"
    end = events[-1]
    assert end["type"] == "round_ended" and end["reason"] == "stack_empty" and end["seat"] == 0
    assert "seat 0 emptied" in end["message"]
    assert R.player_view(state, 0)["message"] == end["message"] == state.message
    refuse(state, 1, {"type": "play", "from": "row", "index": 0}, "round_over")
    refuse(state, 1, {"type": "flip"}, "round_over")
    assert R.legal_actions(state, 1) == [{"type": "ready"}]


def test_L13_it_ends_the_round_when_a_refill_takes_the_last_stack_card():
    state = build([{"row": ["g5", "r1", "b5"], "stack": ["y9"]}, IDLE])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 1})
    assert types(events) == ["card_played", "row_refilled", "round_ended"]
    assert events[-1]["reason"] == "stack_empty"


def test_L13_it_refuses_ready_while_the_round_is_played():
    refuse(race_state(), 0, {"type": "ready"}, "not_round_over")


# --------------------------------------------------------------------------- L14 standstill


def hands(state):
    return [([f"{c.color[0]}{c.value}" for c in p.hand], len(p.waste)) for p in state.players]


def test_L14_it_unblocks_a_standstill_for_everyone_until_a_play_is_possible():
    # After seat 0's r1 nothing fits and no flip would ever show g1 (hand position 1).
    state = build(
        [
            {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y5", "g1", "y7"]},
            {"row": ["r3", "g2", "b6"], "stack": ["b8", "b9"], "hand": ["y2"], "waste": ["y3"]},
        ]
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    # Each unblock turns every waste back under its hand, then the hand's top card goes under.
    # Twice here: after the first, seat 0's flips would show only y5.
    assert types(events) == ["card_played", "row_refilled", "table_unblocked", "table_unblocked"]
    assert events[-1] == {"type": "table_unblocked", "message": R.UNBLOCKED}
    assert R.UNBLOCKED == "Nobody could play: everyone's top hand card went to the bottom."
    assert hands(state) == [(["y7", "y5", "g1"], 0), (["y2", "y3"], 0)]
    assert state.status == "playing" and state.end_reason is None
    assert state.message == (
        "Nobody could play: everyone's top hand card went to the bottom (2 times)."
    )
    for seat in (0, 1, None):
        view = R.player_view(state, seat)
        assert view["message"] == state.message and view["seat"] == seat
    # The next flip shows g1; playing it clears the message (and lets seat 1's g2 follow).
    state, _ = R.apply(state, 0, {"type": "flip"})
    assert state.players[0].waste[-1].color == "green" and state.message is not None
    state, events = R.apply(state, 0, {"type": "play", "from": "waste"})
    assert types(events) == ["card_played"] and state.message is None


def test_L14_an_unblock_changes_no_score_and_keeps_every_card():
    state = build(
        [
            {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y5", "g1", "y7", "y8"]},
            {"row": ["r3", "g6", "b6"], "stack": ["b8", "b7"], "hand": ["y2"], "waste": ["y3"]},
        ],
        scores=[[4, -3]],
        round_no=2,
    )
    before = R.in_center(state)
    cards = all_cards(state)
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert "table_unblocked" in types(events)
    assert all_cards(state) == cards
    assert R.in_center(state) == [before[0] + 1, before[1]]
    assert state.scores == ((4, -3),) and R.round_points(state) == [1 - 2, -4]
    assert [len(p.stack) for p in state.players] == [1, 2]
    assert [p.row for p in state.players][1] == build(
        [IDLE, {"row": ["r3", "g6", "b6"], "stack": ["b8", "b7"]}]
    ).players[1].row


def test_L14_a_flip_that_buries_the_last_playable_card_unblocks_the_table():
    # The waste top g1 fits, but flipping past it leaves it where no flip ever shows it.
    state = build(
        [
            {
                "row": ["r3", "g5", "b5"],
                "stack": ["b8", "b9"],
                "hand": ["y5", "y6", "y7"],
                "waste": ["y2", "g1"],
            },
            IDLE,
        ]
    )
    state, events = R.apply(state, 0, {"type": "flip"})
    assert types(events) == ["hand_flipped", "table_unblocked", "table_unblocked"]
    assert hands(state)[0] == (["y5", "y6", "y7", "y2", "g1"], 0)
    state, _ = R.apply(state, 0, {"type": "flip"})
    state, _ = R.apply(state, 0, {"type": "flip"})
    assert state.players[0].waste[-1].color == "green"


def test_L14_it_ends_the_round_only_when_no_card_of_anyone_fits_anywhere():
    state = build(
        [
            {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y5", "g3", "y7"]},
            {"row": ["r3", "g6", "b6"], "stack": ["b8", "b9"], "waste": ["y2"]},
        ]
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events) == ["card_played", "row_refilled", "round_ended"]
    end = events[-1]
    assert end["reason"] == "deadlock" and "repeated" not in end
    assert end["message"] == (
        "Round 1 is over: no card of any player fits anywhere, so it is scored as it stands."
    )
    assert end["points"] == [1 - 2, -4]
    assert state.message == end["message"] and state.end_reason == "deadlock"
    assert hands(state) == [(["y5", "g3", "y7"], 0), ([], 1)]  # no unblock first


def test_L14_a_card_of_any_hand_or_waste_that_fits_keeps_the_round_going():
    # Only seat 1's buried waste card r2 fits after the play: unblocks bring it up.
    state = build(
        [
            {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y5", "g3", "y7"]},
            {"row": ["r3", "g6", "b6"], "stack": ["b8", "b9"], "waste": ["r2", "y2"]},
        ]
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert state.status == "playing" and types(events).count("table_unblocked") == 1
    assert hands(state)[1] == (["y2", "r2"], 0)


def test_L14_it_counts_cards_a_later_flip_would_show():
    # g1 is the third card of the hand: the next flip shows it, so no unblock is needed.
    base = {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"]}
    state = build([{**base, "hand": ["y5", "y6", "g1"]}, IDLE])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events) == ["card_played", "row_refilled"]
    # The last card of a short hand is shown too.
    state = build([{**base, "hand": ["y5", "g1"]}, IDLE])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events) == ["card_played", "row_refilled"]
    # After the waste is turned over, every third card of waste + hand is shown: here waste[1].
    state = build([{**base, "hand": ["y5"], "waste": ["y6", "y7", "g1", "y8"]}, IDLE])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events) == ["card_played", "row_refilled"]
    for _ in range(2):
        state, _ = R.apply(state, 0, {"type": "flip"})
    assert state.players[0].waste[-1].color == "green"


def test_L14_plus_with_the_row_variant_row_moves_count_as_plays():
    players = [{"row": ["r1", "g5", "b5"], "stack": ["y4", "b9"]}, VARIANT_IDLE]
    state = build(players, options={"row_variant": True})
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert types(events) == ["card_played", "row_refilled"]  # y4 can go onto g5 (L16)
    state = build(players)
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert events[-1]["reason"] == "deadlock"
    # A hand card that fits only a row card keeps the round going, by unblocks.
    players = [{"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y4", "y7", "y6"]}]
    state = build([*players, VARIANT_IDLE], options={"row_variant": True})
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert state.status == "playing" and "table_unblocked" in types(events)
    state = build([*players, VARIANT_IDLE])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert events[-1]["reason"] == "deadlock"


def test_L14_plus_a_deal_at_a_standstill_is_unblocked_at_once():
    # Mini seed 24 deals no 1 that a row, a stack top or a flip shows, for both players.
    fresh = R._deal("ligretto-mini", 2, 24, 1)
    state = R.new_match(2, None, 24, preset="ligretto-mini")
    assert state.status == "playing" and state.center == () and state.message == R.UNBLOCKED
    assert [p.hand for p in state.players] == [p.hand[1:] + p.hand[:1] for p in fresh]
    assert any(a["type"] == "play" for a in R.legal_actions(R._flip(state, 0)[0], 0)) or any(
        a["type"] == "play" for a in R.legal_actions(R._flip(state, 1)[0], 1)
    )


def test_L14_plus_a_deal_with_a_one_outside_the_stacks_is_never_deadlocked():
    for seed in range(200):
        for preset, seats in (("ligretto-mini", 2), ("ligretto", 3)):
            state = R.new_match(seats, {"row_variant": seed % 2 == 1}, seed, preset=preset)
            assert state.status == "playing", (preset, seed)


def test_L14_plus_a_deal_whose_every_one_lies_under_a_stack_top_ends_at_once_as_a_deadlock():
    # Seed 4225 of Mini: both players' three 1s are in their stacks, none on top; no row, hand
    # or waste card can ever start a pile, so the deal is deadlocked and scored as it stands
    # (for a Mini deal about one in 21,000: C(6,3)/C(27,3) for each player).
    state = R.new_match(2, {"rounds": 1}, 4225, preset="ligretto-mini")
    for p in state.players:
        ones = [i for i, c in enumerate(p.stack) if c.value == 1]
        assert len(ones) == 3 and 0 not in ones and len(p.stack) - 1 not in ones
        assert all(c.value != 1 for c in (*p.hand, *(slot[-1] for slot in p.row)))
    assert state.status == "round_over" and state.center == ()
    assert state.message.startswith("Round 1 is over: no card of any player fits anywhere")
    assert [list(t) for t in state.scores] == [[-14, -14]]


def test_L14_plus_the_next_rounds_deal_is_checked_too():
    state = R.new_match(2, {"rounds": 2}, 6, preset="ligretto-mini")
    state = R.load({**R.dump(state), "status": "round_over", "scores": [[0, 0]]})
    state, _ = R.apply(state, 0, {"type": "ready"})
    state, events = R.apply(state, 1, {"type": "ready"})
    assert types(events)[:2] == ["player_ready", "round_dealt"]
    assert set(types(events)[2:]) == {"table_unblocked"}
    assert state.round == 2 and state.status == "playing" and state.message.startswith("Nobody")


def test_L14_plus_a_repeated_standstill_ends_the_round_as_a_deadlock():
    # The unblock never repeats a standstill by itself (it turns every cycle on by one card and
    # stops as soon as something fits); the rule guards the end of every round anyway. Here the
    # standstill that seat 0's play leads to was already unblocked once since the last play.
    players = [
        {"row": ["r1", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["g1", "y5", "y7"]},
        {"row": ["r3", "g6", "b6"], "stack": ["b8", "b9"], "hand": ["y2"], "waste": ["y3"]},
    ]
    # A play forgets older standstills: the centre has grown, so none of them can come back.
    seen = [[["green", 1, 0], ["yellow", 3, 1]]]
    state = R.load({**R.dump(build(players)), "standstills": seen})
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 0})
    assert "table_unblocked" in types(events) and state.status == "playing"
    assert state.standstills == ((("green", 1, 0), ("yellow", 3, 1)),)
    flipper = build(
        [
            {"row": ["r3", "g5", "b5"], "stack": ["b8", "b9"], "hand": ["y5", "y6", "y7"]}
            | {"waste": ["y2", "g1"]},
            IDLE,
        ]
    )
    # The flip below leads to the standstill keyed (y2, 5 cards of waste) for seat 0.
    state = R.load({**R.dump(flipper), "standstills": [[["yellow", 2, 5], None]]})
    state, events = R.apply(state, 0, {"type": "flip"})
    assert types(events) == ["hand_flipped", "round_ended"]
    end = events[-1]
    assert end["reason"] == "deadlock" and end["repeated"] is True
    assert "came back to a standstill" in end["message"] and state.status == "round_over"


# --------------------------------------------------------------------------- L15 scoring


def test_L15_it_scores_own_centre_cards_and_minus_two_per_stack_card():
    state = build(
        [
            {
                "row": ["g5", "g6", "b5"],
                "stack": ["b8", "b9", "r3"],
                "hand": ["y2", "y3"],
                "waste": ["r5"],
            },
            {"row": ["g7", "g8", "b6"], "stack": ["y10", "r4"], "hand": ["y4"]},
        ],
        center=[["r1", "r2@1"], ["b1@1", "b2", "b3@1"], ["y" + str(v) for v in range(1, 10)]],
    )
    assert R.in_center(state) == [11, 3]
    state, events = R.apply(state, 0, {"type": "play", "from": "stack"})  # r3 on pile 0
    state, events = R.apply(state, 1, {"type": "play", "from": "stack"})  # r4 on pile 0
    state, events = R.apply(state, 1, {"type": "play", "from": "stack"})  # y10 closes, ends
    # Seat 0: 12 in the centre (closed y pile included), 2 left in the stack.
    assert events[-1]["points"] == [12 - 4, 5 - 0]
    view = R.player_view(state, 0)
    assert view["scores"] == [{"round": 1, "points": [8, 5]}] and view["totals"] == [8, 5]
    assert [t["in_center"] for t in view["tableaus"]] == [12, 5]


# --------------------------------------------------------------------------- L16 row variant


def variant_state(**kw):
    return build(
        [
            {
                "row": ["r6", ["g5", "r4"], "b5"],
                "stack": ["b8", "y5"],
                "waste": ["g3"],
                "hand": ["y9"],
            },
            KEEP,
        ],
        options={"row_variant": True},
        **kw,
    )


def test_L16_it_puts_a_stack_or_waste_top_one_lower_of_another_colour_on_a_row_card():
    state = variant_state()
    legal = R.legal_actions(state, 0)
    assert {"type": "play", "from": "stack", "to": "row", "index": 0} in legal
    assert {"type": "play", "from": "waste", "to": "row", "index": 1} in legal
    assert {"type": "play", "from": "stack", "to": "row", "index": 2} not in legal  # same value
    state, events = R.apply(state, 0, {"type": "play", "from": "waste", "to": "row", "index": 1})
    assert events[0] == {
        "type": "card_moved",
        "seat": 0,
        "from": "waste",
        "to": "row",
        "index": 1,
        "card": {"color": "green", "value": 3},
    }
    t = R.player_view(state, 0)["tableaus"][0]
    assert t["row_depth"] == [1, 3, 1] and t["row"][1] == {"color": "green", "value": 3}


def test_L16_it_refuses_the_same_colour_or_a_wrong_value():
    state = build(
        [{"row": ["y6", "r7", "b5"], "stack": ["b8", "y5"]}, IDLE], options={"row_variant": True}
    )
    refuse(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 0}, "does_not_fit")
    refuse(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 1}, "does_not_fit")
    refuse(state, 0, {"type": "play", "from": "waste", "to": "row", "index": 1}, "empty_waste")
    refuse(state, 0, {"type": "play", "from": "row", "to": "row", "index": 1}, "bad_action")
    refuse(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 3}, "no_such_slot")


def test_L16_it_is_off_by_default():
    state = build([{"row": ["r6", "g5", "b5"], "stack": ["b8", "y5"]}, IDLE])
    assert all("to" not in a for a in R.legal_actions(state, 0))
    refuse(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 0}, "row_variant_off")


def test_L16_it_plays_the_slot_top_and_refills_only_an_emptied_slot():
    state = variant_state(center=[["g1@1", "g2@1", "g3@1", "g4@1"], ["r1@1", "r2@1", "r3@1"]])
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 1})  # r4 leaves
    assert types(events) == ["card_played"] and events[0]["pile"] == 1
    assert state.players[0].row[1][-1].value == 5 and len(state.players[0].stack) == 2
    state, events = R.apply(state, 0, {"type": "play", "from": "row", "index": 1})  # g5 leaves
    assert types(events) == ["card_played", "row_refilled"]
    assert events[1]["card"] == {"color": "yellow", "value": 5}
    assert R.player_view(state, 0)["tableaus"][0]["row_depth"] == [1, 1, 1]


def test_L16_it_ends_the_round_when_a_row_move_empties_the_stack():
    state = build(
        [{"row": ["r6", "g5", "b5"], "stack": ["y5"]}, IDLE], options={"row_variant": True}
    )
    state, events = R.apply(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 0})
    assert events[-1]["type"] == "round_ended" and events[-1]["reason"] == "stack_empty"


# --------------------------------------------------------------------------- G0-G2


def test_G0_it_dumps_json_native_data_that_survives_a_round_trip():
    state = R.new_match(5, {"rounds": 3, "row_variant": True}, 42)
    for _ in range(30):
        for seat in range(5):
            legal = R.legal_actions(state, seat)
            if legal and state.status == "playing":
                state, _ = R.apply(state, seat, legal[0])
    data = R.dump(state)
    text = json.dumps(data)
    assert json.loads(text) == data
    assert R.dump(R.load(json.loads(text))) == data
    assert R.load(data) == state
    assert R.player_view(R.load(data), 2) == R.player_view(state, 2)


def test_G0_it_still_loads_version_1_dumps_with_their_meaning():
    state = R.new_match(2, {"rounds": 3}, 5)
    old = {**R.dump(state), "version": 1, "end_message": "Round 1 is over."}
    del old["message"], old["standstills"]
    # Version 1 played either a fixed number of rounds or to a target without a limit.
    old["options"] = {"rounds": 3, "row_variant": False}
    loaded = R.load(old)
    assert loaded.options == {"target": None, "rounds": 3, "row_variant": False}
    assert loaded.message == "Round 1 is over." and loaded.standstills == ()
    assert loaded.players == state.players
    old["options"] = {"target": 50, "row_variant": False}
    assert R.load(old).options == {"target": 50, "rounds": R.MAX_ROUNDS, "row_variant": False}
    assert R.dump(R.load(old))["version"] == 2


def test_G1_it_deals_the_same_round_from_the_same_seed_and_another_from_another():
    a = R.new_match(4, None, 123)
    assert R.dump(a) == R.dump(R.new_match(4, None, 123))
    assert R.dump(a)["players"] != R.dump(R.new_match(4, None, 124))["players"]
    round2 = R._start_round(a, 2)[0]
    assert R.dump(round2)["players"] != R.dump(a)["players"]
    assert R.dump(R._start_round(a, 2)[0]) == R.dump(round2)


def test_G2_it_refuses_malformed_actions_and_unknown_seats_leaving_the_state_unchanged():
    state = race_state()
    refuse(state, 3, {"type": "flip"}, "no_such_seat")
    refuse(state, -1, {"type": "flip"}, "no_such_seat")
    refuse(state, True, {"type": "flip"}, "no_such_seat")
    refuse(state, "0", {"type": "flip"}, "no_such_seat")
    for bad in (
        None,
        [],
        {},
        {"type": 3},
        {"type": "jump"},
        {"type": "play"},
        {"type": "play", "from": "row"},
        {"type": "play", "from": "row", "index": "0"},
        {"type": "play", "from": "row", "index": True},
        {"type": "play", "from": "stack", "pile": "0"},
        {"type": "play", "from": "stack", "pile": False},
        {"type": "play", "from": "stack", "to": "centre"},
        {"type": "play", "from": "stack", "to": "row", "index": 0, "pile": 1},
    ):
        refuse(state, 0, bad, "bad_action")
    refuse(state, 0, {"type": "play", "from": "row", "index": 5}, "no_such_slot")


def test_G2_it_refuses_plays_from_empty_places():
    state = build([{"row": [[], "g5", "b5"], "stack": ["b8"], "hand": ["r1"]}, IDLE])
    refuse(state, 0, {"type": "play", "from": "row", "index": 0}, "empty_slot")
    refuse(state, 0, {"type": "play", "from": "waste"}, "empty_waste")
    # Only a loaded state can be playing with an empty stack (L13 ends the round first).
    state = build([{"row": ["r6", "g5", "b5"], "stack": []}, IDLE], options={"row_variant": True})
    refuse(state, 0, {"type": "play", "from": "stack"}, "empty_stack")
    refuse(state, 0, {"type": "play", "from": "stack", "to": "row", "index": 0}, "empty_stack")
    state = build([{"row": ["r5", "g5", "b5"], "stack": []}, IDLE], status="round_over")
    refuse(state, 0, {"type": "play", "from": "stack"}, "round_over")


def test_G2_it_never_changes_the_input_state_on_success():
    state = race_state()
    before = R.dump(state)
    for seat in range(3):
        for action in R.legal_actions(state, seat):
            R.apply(state, seat, action)
    assert R.dump(state) == before


def test_G2_views_show_only_public_cards():
    state = R.new_match(3, None, 8)
    state, _ = R.apply(state, 1, {"type": "flip"})
    expected = visible_cards(state)

    for seat in (None, 0, 1, 2):
        assert view_cards(R.player_view(state, seat)) == expected


def test_the_centre_says_whose_card_tops_each_pile_and_at_the_round_end_whose_cards_it_holds():
    players = [{"row": ["g5", "y5"], "stack": ["b7"]}, {"row": ["g6", "y6"], "stack": ["b8"]}]
    center = [["r1@1", "r2@0", "r3@1"]]
    racing = R.player_view(build(players, center=center), None)["center"][0]
    assert racing["owner"] == 1
    assert "owners" not in racing  # during a race only the tops show
    over = R.player_view(build(players, center=center, status="round_over"), 0)["center"][0]
    assert over["owner"] == 1 and over["owners"] == [1, 0, 1]
