// The replay viewer: asks the server for one frame at a time (a step, seen by one seat or by
// all) and shows the HTML fragments it sends. The server builds each fragment from that seat's
// observation only, so nothing another seat may not see ever reaches this page.
(function () {
  "use strict";
  const root = document.getElementById("viewer");
  if (!root) return;
  const base = root.dataset.frames;            // e.g. /matches/7/replay/frames/
  const total = parseInt(root.dataset.total, 10);
  const el = (id) => document.getElementById(id);
  const state = { step: 1, seat: root.dataset.seat, playing: null, pending: 0, loading: false };

  function parseHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const step = parseInt(params.get("step") || "", 10);
    if (step >= 1 && step <= total) state.step = step;
    const seat = params.get("seat");
    if (seat !== null && el("seat").querySelector(`option[value="${CSS.escape(seat)}"]`)) state.seat = seat;
  }

  async function show(step) {
    step = Math.max(1, Math.min(total, step));
    const ticket = ++state.pending;
    el("status").textContent = "loading…";
    state.loading = true;
    let frame;
    try {
      const response = await fetch(`${base}${step}?seat=${encodeURIComponent(state.seat)}`,
                                   { headers: { Accept: "application/json" } });
      frame = await response.json();
      if (!response.ok) throw new Error(frame.error || response.statusText);
    } catch (err) {
      if (ticket === state.pending) el("status").textContent = `could not load step ${step}: ${err.message}`;
      return;
    } finally {
      if (ticket === state.pending) state.loading = false;
    }
    if (ticket !== state.pending) return;   // a later request superseded this one
    state.step = step;
    el("record").innerHTML = frame.record_html;
    el("board").innerHTML = frame.board_html;
    el("seatview").innerHTML = frame.seat_html;
    el("jump").value = String(step);
    el("position").textContent = `${frame.label} of ${frame.steps} steps`;
    el("status").textContent = "";
    root.dataset.step = String(step);
    const outputStep = el("output-step");   // an owner's page: the output panel names the step
    if (outputStep) outputStep.textContent = String(step);
    history.replaceState(null, "", `#step=${step}&seat=${encodeURIComponent(state.seat)}`);
  }

  function stop() {
    if (state.playing !== null) clearInterval(state.playing);
    state.playing = null;
    el("play").textContent = "Play";
  }

  function play() {
    if (state.playing !== null) { stop(); return; }
    const speed = parseFloat(el("speed").value) || 1;
    el("play").textContent = "Pause";
    state.playing = setInterval(() => {
      if (state.loading) return;  // a server slower than the speed: wait for the frame shown
      if (state.step >= total) { stop(); return; }
      show(state.step + 1);
    }, 1000 / speed);
  }

  el("first").addEventListener("click", () => { stop(); show(1); });
  el("back").addEventListener("click", () => { stop(); show(state.step - 1); });
  el("forward").addEventListener("click", () => { stop(); show(state.step + 1); });
  el("last").addEventListener("click", () => { stop(); show(total); });
  el("play").addEventListener("click", play);
  el("speed").addEventListener("change", () => { if (state.playing !== null) { stop(); play(); } });
  el("jumpform").addEventListener("submit", (event) => {
    event.preventDefault();
    stop();
    show(parseInt(el("jump").value, 10) || 1);
  });
  el("seat").addEventListener("change", () => { state.seat = el("seat").value; show(state.step); });

  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    if (key === "ArrowRight" || key === "l") { stop(); show(state.step + 1); }
    else if (key === "ArrowLeft" || key === "h") { stop(); show(state.step - 1); }
    else if (key === "Home") { stop(); show(1); }
    else if (key === "End") { stop(); show(total); }
    else if (key === " ") { play(); }
    else if (key === "g") { el("jump").focus(); el("jump").select(); }
    else if (key === "s") {
      const select = el("seat");
      select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
      state.seat = select.value;
      show(state.step);
    } else return;
    event.preventDefault();
  });

  parseHash();
  el("seat").value = state.seat;
  show(state.step);
})();
