"""The OpenAPI 3.1 description of the Board API, served at /api/v1/schema.

Hand-written, next to the views it describes; tests/api/test_schema.py checks it is a valid
OpenAPI document and that real answers of every call match it. Extra fields are allowed
everywhere (api.md), so objects only list what they promise.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }


INT = {"type": "integer"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
SEAT = {"type": ["integer", "null"], "minimum": 0}
LCARD = _obj({"color": {"enum": ["red", "yellow", "green", "blue"]}, "value": {"type": "integer"}})
ACARD = _obj({"value": {"type": "integer", "minimum": -1, "maximum": 11}})
PLACE = _obj({"seat": INT, "row": INT, "col": INT})

SCHEMAS: dict[str, Any] = {
    "Error": _obj(
        {"error": _obj({"code": STR, "message": STR})},
        {"view": {"oneOf": [_ref("View"), {"type": "null"}]}},
    ),
    "Credentials": _obj({"username": STR, "password": STR}),
    "SignedUp": _obj({"username": STR, "token": STR}),
    "Token": _obj({"token": STR}),
    "NewRoom": _obj(
        {"game": {"enum": ["ligretto-mini", "ligretto", "allegra"]}, "seats": INT},
        {"options": {"type": "object"}, "private": BOOL},
    ),
    "Remove": _obj({"seat": INT}),
    "Close": _obj({}, {"reason": {"type": "string", "maxLength": 200}}),
    "Invite": _obj({}, {"invite": STR}),
    "Bots": _obj(
        {},
        {"count": {"type": "integer", "minimum": 1}, "level": {"enum": ["easy", "normal", "fast"]}},
    ),
    "Room": _obj(
        {
            "id": INT,
            "game": {"enum": ["ligretto-mini", "ligretto", "allegra"]},
            "status": {"enum": ["open", "playing", "finished"]},
            "seats": INT,
            "options": {"type": "object"},
            "host": STR,
            "players": {
                "type": "array",
                "items": _obj({"seat": INT, "name": STR, "bot": BOOL}),
            },
            "url": {"type": "string", "format": "uri"},
            "private": BOOL,
        },
        {"invite": STR},
    ),
    "RoomList": _obj({"rooms": {"type": "array", "items": _ref("Room")}}),
    "Action": {"type": "object", "required": ["type"], "properties": {"type": STR}},
    "ActionRequest": _obj({"action": _ref("Action")}),
    "ViewAnswer": _obj({"view": _ref("View")}),
    "View": {
        "type": "object",
        "required": [
            "room",
            "game",
            "status",
            "round",
            "version",
            "seat",
            "players",
            "legal",
            "scores",
            "message",
        ],  # fmt: skip
        "properties": {
            "room": INT,
            "game": {"enum": ["ligretto-mini", "ligretto", "allegra"]},
            "status": {"enum": ["starting", "playing", "round_over", "finished", "closed"]},
            "round": {"type": "integer", "minimum": 1},
            "version": INT,
            "seat": SEAT,
            "players": {
                "type": "array",
                "items": _obj(
                    {"seat": INT, "name": STR, "bot": BOOL, "connected": BOOL, "total": INT},
                    # A human without a socket: when a stand-in bot takes his seat (ISO 8601).
                    {"away_until": STR},
                ),
            },
            "legal": {"type": "array", "items": _ref("Action")},
            "scores": {
                "type": "array",
                "items": _obj({"round": INT, "points": {"type": "array", "items": INT}}),
            },
            "message": {"type": ["string", "null"]},
        },
        "oneOf": [_ref("LigrettoFields"), _ref("AllegraFields")],
    },
    "LigrettoFields": _obj(
        {
            "game": {"enum": ["ligretto-mini", "ligretto"]},
            "center": {
                "type": "array",
                "items": _obj(
                    {"pile": INT, "color": STR, "top": INT, "count": INT, "closed": BOOL},
                    {"owner": INT, "owners": {"type": "array", "items": INT}},
                ),
            },
            "tableaus": {
                "type": "array",
                "items": _obj(
                    {
                        "seat": INT,
                        "row": {"type": "array", "items": {"oneOf": [LCARD, {"type": "null"}]}},
                        "row_depth": {"type": "array", "items": INT},
                        "stack_top": {"oneOf": [LCARD, {"type": "null"}]},
                        "stack_count": INT,
                        "hand_count": INT,
                        "waste_top": {"oneOf": [LCARD, {"type": "null"}]},
                        "waste_count": INT,
                        "in_center": INT,
                    }
                ),
            },
        }
    ),
    "AllegraFields": _obj(
        {
            "game": {"const": "allegra"},
            "turn": SEAT,
            "phase": {"enum": ["opening", "draw", "decide", "knock_place", "knock_take"]},
            "deck_count": INT,
            "discard_top": {"oneOf": [ACARD, {"type": "null"}]},
            "drawn": {"oneOf": [ACARD, {"type": "null"}]},
            "knocks": {"type": "array", "items": INT},
            "knocker": SEAT,
            "hand": {"oneOf": [ACARD, {"type": "null"}]},
            "ender": SEAT,
            "grids": {
                "type": "array",
                "items": _obj(
                    {
                        "seat": INT,
                        "cells": {
                            "type": "array",
                            "items": {
                                "type": "array",
                                "items": {
                                    "oneOf": [
                                        _obj({"value": INT}),
                                        _obj({"hidden": {"const": True}}),
                                        {"type": "null"},
                                    ]
                                },
                            },
                        },
                    }
                ),
            },
            "areas": {
                "type": "array",
                "items": _obj(
                    {
                        "seat": INT,
                        "places": {
                            "type": "array",
                            "items": {"type": "array", "items": PLACE},
                        },
                    }
                ),
            },
        }
    ),
    "ScoreSheet": _obj(
        {
            "room": INT,
            "game": STR,
            "status": {"enum": ["open", "playing", "finished"]},
            "players": {"type": "array", "items": _obj({"seat": INT, "name": STR, "bot": BOOL})},
            "rounds": {
                "type": "array",
                "items": _obj(
                    {
                        "round": INT,
                        "points": {"type": "array", "items": INT},
                        "reason": {"type": ["string", "null"]},
                    }
                ),
            },
            "totals": {"type": "array", "items": INT},
            "winners": {"type": ["array", "null"], "items": INT},
        }
    ),
}


def _answer(description: str, schema: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(schema)}}}


def _errors(*statuses: int) -> dict[str, Any]:
    words = {
        400: "Bad input",
        401: "No or bad token",
        403: "Not allowed",
        404: "No such room",
        409: "Conflict with the current state",
        429: "Too many requests (see Retry-After)",
    }
    return {str(s): _answer(words[s], "Error") for s in statuses}


def _body(schema: str, required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {"application/json": {"schema": _ref(schema)}}}


ROOM_ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
AUTHED = (401, 429)


def _room_call(summary: str, answer: str = "Room", *errors: int, body: str = "") -> dict:
    operation: dict[str, Any] = {
        "summary": summary,
        "parameters": ROOM_ID,
        "responses": {"200": _answer("OK", answer), **_errors(*AUTHED, 404, *errors)},
    }
    if body:
        operation["requestBody"] = _body(body, required=False)
    return operation


PATHS: dict[str, Any] = {
    "/api/v1/signup": {
        "post": {
            "summary": "Create an account and its first token",
            "security": [],
            "requestBody": _body("Credentials"),
            "responses": {"201": _answer("Signed up", "SignedUp"), **_errors(400, 429)},
        }
    },
    "/api/v1/token": {
        "post": {
            "summary": "Get a new token for an account",
            "security": [],
            "requestBody": _body("Credentials"),
            "responses": {"200": _answer("A new token", "Token"), **_errors(400, 401, 429)},
        }
    },
    "/api/v1/rooms": {
        "get": {
            "summary": "List open rooms",
            "responses": {"200": _answer("Open rooms", "RoomList"), **_errors(*AUTHED)},
        },
        "post": {
            "summary": "Open a room; the caller hosts it and sits in seat 0",
            "requestBody": _body("NewRoom"),
            "responses": {"201": _answer("The new room", "Room"), **_errors(400, *AUTHED, 409)},
        },
    },
    "/api/v1/rooms/{id}": {"get": _room_call("A room")},
    "/api/v1/rooms/{id}/join": {
        "post": _room_call("Take the lowest free seat", "Room", 403, 409, body="Invite")
    },
    "/api/v1/rooms/{id}/remove": {
        "post": _room_call(
            "Remove a player before the start (host)", "Room", 400, 403, 409, body="Remove"
        )
    },
    "/api/v1/rooms/{id}/close": {
        "post": _room_call("Close the room; a match stops (host)", "Room", 403, 409, body="Close")
    },
    "/api/v1/rooms/{id}/leave": {"post": _room_call("Give up your seat", "Room", 409)},
    "/api/v1/rooms/{id}/bots": {
        "post": _room_call("Fill free seats with bots (host)", "Room", 400, 403, 409, body="Bots")
    },
    "/api/v1/rooms/{id}/start": {"post": _room_call("Start the room (host)", "Room", 403, 409)},
    "/api/v1/rooms/{id}/view": {"get": _room_call("Your view of the table", "View", 409)},
    "/api/v1/rooms/{id}/actions": {
        "post": {
            **_room_call("Play an action", "ViewAnswer", 400, 403, 409),
            "requestBody": _body("ActionRequest"),
        }
    },
    "/api/v1/rooms/{id}/scores": {"get": _room_call("The score sheet", "ScoreSheet")},
}


def openapi(request: HttpRequest | None = None) -> dict[str, Any]:
    """Return the OpenAPI document (servers: the site the request reached)."""
    servers = [{"url": request.build_absolute_uri("/").rstrip("/")}] if request else []
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cardgames Board API",
            "version": "1",
            "description": "Play Ligretto Mini, Ligretto and Allegra through JSON, as people do "
            "in the browser. Live stream: ws(s)://HOST/ws/api/v1/rooms/{id}/?token=TOKEN "
            "(see docs/api.md).",
        },
        "servers": servers,
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": SCHEMAS,
        },
        "paths": PATHS,
    }
