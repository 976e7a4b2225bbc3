// The room page: when the game starts, go to the table (the room's socket says so).
document.addEventListener("htmx:wsAfterMessage", () => {
  const link = document.querySelector("#table-link[data-navigate]");
  if (link) window.location.assign(link.href);
});
