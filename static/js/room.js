// The room page: when the game starts, go to the table (the room's socket says so).
document.addEventListener("htmx:wsAfterMessage", () => {
  const link = document.querySelector("#table-link[data-navigate]");
  if (link) window.location.assign(link.href);
});

// A push redraws the room part whole (a seat taken or left, a bot added), forms and all. What a
// player had typed or chosen in its forms (a count of bots, their level, a reason to close)
// and where the cursor was are carried over to the new part, by form id and field name; a
// count is kept within what the new form allows (fewer free seats: a lower maximum).
let typed = null;

document.addEventListener("htmx:wsBeforeMessage", () => {
  const live = document.getElementById("room-live");
  typed = null;
  if (!live) return;
  const fields = [];
  for (const field of live.querySelectorAll("form[id] input[name], form[id] select[name]")) {
    const changed =
      field.tagName === "SELECT"
        ? [...field.options].some((option) => option.selected !== option.defaultSelected)
        : field.value !== field.defaultValue;
    if (changed) fields.push({ form: field.form.id, name: field.name, value: field.value });
  }
  const active = document.activeElement;
  const focus =
    active && live.contains(active) && active.form && active.form.id && active.name
      ? { form: active.form.id, name: active.name }
      : null;
  if (fields.length || focus) typed = { fields, focus };
});

function fieldOf(form, name) {
  const found = document.getElementById(form);
  const field = found && found.elements ? found.elements.namedItem(name) : null;
  return field instanceof HTMLInputElement || field instanceof HTMLSelectElement ? field : null;
}

document.addEventListener("htmx:wsAfterMessage", () => {
  if (!typed) return;
  const { fields, focus } = typed;
  typed = null;
  for (const { form, name, value } of fields) {
    const field = fieldOf(form, name);
    if (!field || field.value === value) continue; // not redrawn, or gone with its form
    let kept = value;
    if (field.type === "number" && value !== "") {
      const number = Number(value);
      const low = field.min === "" ? -Infinity : Number(field.min);
      const high = field.max === "" ? Infinity : Number(field.max);
      if (Number.isFinite(number)) kept = String(Math.min(Math.max(number, low), high));
    }
    if (field.tagName === "SELECT" && ![...field.options].some((o) => o.value === kept)) continue;
    field.value = kept;
  }
  if (focus) {
    const field = fieldOf(focus.form, focus.name);
    if (field && document.activeElement !== field) field.focus();
  }
});
