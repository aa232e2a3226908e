// A running match's live view: reads GET /api/matches/{id}/live (server-sent events) and shows
// each step as the replay will record it (the seat and its action's text; the server sends
// nothing else). At the end it opens the replay. Text is set with textContent only: action
// texts and bot names never become markup.
(function () {
  "use strict";
  const root = document.getElementById("live");
  if (!root || typeof EventSource === "undefined") return;
  const el = (id) => document.getElementById(id);
  const seats = JSON.parse(root.dataset.seats || "[]");
  const colours = JSON.parse(root.dataset.colours || "[]");
  const KEEP = 200;  // lines kept on the page
  const status = (text) => { el("live-status").textContent = text; };

  function seatName(seat) {
    const name = seats[seat];
    return name ? `Seat ${seat} (${name})` : `Seat ${seat}`;
  }

  function line(step) {
    const p = document.createElement("p");
    p.className = "event";
    const pawn = document.createElement("span");
    pawn.className = "pawn";
    pawn.style.background = colours[step.seat % colours.length] || "#888";
    p.appendChild(pawn);
    const who = step.forfeit ? `${seatName(step.seat)} forfeits` : `${seatName(step.seat)} chose: `;
    p.appendChild(document.createTextNode(who));
    if (!step.forfeit) {
      const b = document.createElement("b");
      b.textContent = step.text;
      p.appendChild(b);
    }
    if (step.reason) p.appendChild(document.createTextNode(` (${step.reason})`));
    return p;
  }

  function toReplay(url) {
    status("the match is over: opening its replay…");
    location.replace(url);
  }

  const source = new EventSource(root.dataset.src);
  source.addEventListener("open", () => status("live"));
  source.addEventListener("step", (event) => {
    const step = JSON.parse(event.data);
    root.dataset.step = String(step.step);
    el("live-step").textContent = String(step.step);
    el("live-record").replaceChildren(line(step));
    const item = document.createElement("li");
    item.value = step.step;
    item.appendChild(line(step));
    const log = el("live-log");
    log.prepend(item);
    while (log.children.length > KEEP) log.lastElementChild.remove();
    status("live");
  });
  source.addEventListener("restart", () => {
    el("live-log").replaceChildren();
    el("live-record").replaceChildren();
    el("live-step").textContent = "0";
    root.dataset.step = "0";
    status("the match is played again from its start");
  });
  source.addEventListener("end", (event) => {
    source.close();
    const end = JSON.parse(event.data);
    if (end.status === "done") toReplay(end.replay_url);
    else location.reload();  // failed: the match page says why
  });
  source.addEventListener("error", () => {
    if (source.readyState !== EventSource.CLOSED) { status("reconnecting…"); return; }
    // the server refused the stream (the match is over: 410; too many spectators: 503)
    fetch(root.dataset.match, { headers: { Accept: "application/json" } })
      .then((response) => response.json())
      .then((match) => {
        if (match.status === "done") toReplay(root.dataset.replay);
        else if (match.status === "failed") location.reload();
        else status("the live view is not available now; reload the page to try again");
      })
      .catch(() => status("the live view is not available now; reload the page to try again"));
  });
})();
