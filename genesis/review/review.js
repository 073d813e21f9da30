// Pairwise review page: one query at a time, A / B / tie by button or key, progress, and results.
// Choices are kept in localStorage (per page and reviewer) and, when the page is served by
// `genesis review --open`, posted to the server, which writes review.json next to the page.
// "Download results" saves the same document from a page opened as a file.
(function () {
  "use strict";
  const results = JSON.parse(document.getElementById("review-results").textContent);
  const sections = [...document.querySelectorAll("section.item")];
  const dots = [...document.querySelectorAll(".dot")];
  const reviewerInput = document.getElementById("reviewer");
  const status = document.getElementById("save-status");
  const served = location.protocol === "http:" || location.protocol === "https:";
  const pageId = "genesis-review:" + results.a.path + "|" + results.b.path;
  let current = 0;
  let choices = new Map();      // key -> {choice, timestamp}

  const reviewer = () => reviewerInput.value.trim();
  const storeKey = () => pageId + "|" + reviewer();

  function mine(list) {
    const out = new Map();
    for (const j of list) {
      if (j.kind === "human" && j.reviewer === reviewer()) {
        const old = out.get(j.key);
        if (!old || old.timestamp < j.timestamp) out.set(j.key, {choice: j.choice, timestamp: j.timestamp});
      }
    }
    return out;
  }

  function mergeNewer(into, from) {
    for (const [k, v] of from) {
      const old = into.get(k);
      if (!old || old.timestamp < v.timestamp) into.set(k, v);
    }
  }

  function judgements() {
    return [...choices].map(([key, v]) => ({key, choice: v.choice, timestamp: v.timestamp, reviewer: reviewer(), kind: "human"}));
  }

  function document_() {
    const others = results.judgements.filter((j) => !(j.kind === "human" && j.reviewer === reviewer()));
    return {...results, judgements: others.concat(judgements())};
  }

  async function loadReviewer() {
    choices = mine(results.judgements);
    try { mergeNewer(choices, new Map(JSON.parse(localStorage.getItem(storeKey()) || "[]"))); } catch (e) { /* private mode */ }
    if (served && reviewer()) {
      try {
        const r = await fetch("review.json", {cache: "no-store"});
        if (r.ok) mergeNewer(choices, mine((await r.json()).judgements || []));
      } catch (e) { /* the server is gone: the local copy stands */ }
    }
    render();
  }

  function keep() {
    try { localStorage.setItem(storeKey(), JSON.stringify([...choices])); } catch (e) { /* private mode */ }
  }

  let saving = Promise.resolve();
  function save() {
    keep();
    saving = saving.then(post);   // one request at a time, in the order the choices were made
  }

  async function post() {
    if (!served) {
      status.textContent = "kept in this browser; opened as a file, so use Download results to save review.json";
      return;
    }
    status.textContent = "saving…";
    try {
      const r = await fetch("results", {method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({reviewer: reviewer(), judgements: judgements()})});
      const body = await r.json();
      if (!r.ok) throw new Error(body.error || r.statusText);
      status.textContent = `saved ${body.saved} choice(s) to ${body.file} at ${new Date().toLocaleTimeString()}`;
      status.dataset.saved = String(body.saved);
    } catch (e) {
      status.textContent = "NOT saved on disk (" + e.message + "); kept in this browser, use Download results";
    }
  }

  function fitFrame(frame) {
    try {
      const doc = frame.contentDocument;
      frame.style.height = (doc.documentElement.scrollHeight + 4) + "px";
      doc.addEventListener("keydown", onKey);   // shortcuts keep working after a click in the replay
    } catch (e) { /* not readable: keep the default height */ }
  }

  function show(i) {
    current = Math.max(0, Math.min(sections.length - 1, i));
    sections.forEach((s, k) => { s.hidden = k !== current; });
    for (const frame of sections[current].querySelectorAll("iframe[data-srcdoc]")) {
      frame.addEventListener("load", () => fitFrame(frame));
      frame.srcdoc = frame.dataset.srcdoc;     // built on first view: the page holds every query
      frame.removeAttribute("data-srcdoc");
    }
    render();
    window.scrollTo(0, 0);
  }

  function render() {
    const done = sections.filter((s) => choices.has(s.dataset.key)).length;
    document.getElementById("progress-text").textContent = `${done} / ${sections.length} judged`;
    document.getElementById("progress-fill").style.width = (100 * done / Math.max(1, sections.length)) + "%";
    document.body.dataset.judged = String(done);
    dots.forEach((d, k) => {
      const c = choices.get(sections[k].dataset.key);
      d.className = "dot" + (k === current ? " current" : "") + (c ? " c-" + c.choice : "");
    });
    const sec = sections[current];
    const c = choices.get(sec.dataset.key);
    for (const b of document.querySelectorAll(".choose")) b.classList.toggle("selected", !!c && b.dataset.choice === c.choice);
    sec.querySelector(".side-a").classList.toggle("chosen", !!c && c.choice === "a");
    sec.querySelector(".side-b").classList.toggle("chosen", !!c && c.choice === "b");
    sec.querySelector(".current-choice").textContent = c
      ? `your choice: ${c.choice === "tie" ? "tie" : c.choice.toUpperCase() + " is better"} (${new Date(c.timestamp).toLocaleString()})`
      : "not judged yet";
  }

  function choose(choice) {
    if (!reviewer()) {
      reviewerInput.classList.add("need");
      reviewerInput.focus();
      status.textContent = "enter your name as reviewer first";
      return;
    }
    choices.set(sections[current].dataset.key, {choice, timestamp: new Date().toISOString()});
    save();
    const next = sections.findIndex((s, k) => k > current && !choices.has(s.dataset.key));
    if (next >= 0) show(next); else render();
  }

  function onKey(ev) {
    const t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA"))) return;
    const k = ev.key.toLowerCase();
    if (k === "a" || k === "b" || k === "t") { ev.preventDefault(); choose(k === "t" ? "tie" : k); }
    else if (ev.key === "ArrowRight") { ev.preventDefault(); show(current + 1); }
    else if (ev.key === "ArrowLeft") { ev.preventDefault(); show(current - 1); }
  }

  function download() {
    const blob = new Blob([JSON.stringify(document_(), null, 2)], {type: "application/json"});
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "review.json";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  document.addEventListener("keydown", onKey);
  for (const b of document.querySelectorAll(".choose")) b.addEventListener("click", () => choose(b.dataset.choice));
  document.getElementById("prev").addEventListener("click", () => show(current - 1));
  document.getElementById("next").addEventListener("click", () => show(current + 1));
  document.getElementById("download").addEventListener("click", download);
  dots.forEach((d, k) => d.addEventListener("click", () => show(k)));
  reviewerInput.value = localStorage.getItem("genesis-review-reviewer") || "";
  reviewerInput.addEventListener("change", () => {
    reviewerInput.classList.remove("need");
    try { localStorage.setItem("genesis-review-reviewer", reviewer()); } catch (e) { /* private mode */ }
    loadReviewer();
  });
  show(0);
  loadReviewer().then(() => {
    const first = sections.findIndex((s) => !choices.has(s.dataset.key));
    if (first > 0) show(first);
    document.body.dataset.ready = "1";
  });
})();
