// Interactive replay of one run: reads the JSON in #replay-data (written by engine/replay.py) and
// draws it on a canvas. No network, no libraries. Positions are stored in 1/quant tiles, hp in %.
(function () {
  "use strict";
  const dataNode = document.getElementById("replay-data");
  const root = document.getElementById("replay");
  if (!dataNode || !root) return;
  const R = JSON.parse(dataNode.textContent);
  const $ = (sel) => root.querySelector(sel);
  const canvas = $("canvas.rp-canvas"), ctx = canvas.getContext("2d");
  const W = R.width, H = R.height, Q = R.quant;
  const PALETTE = JSON.parse(document.getElementById("replay-palette").textContent);   // engine/palette.py
  const TERRAIN = PALETTE.terrain, JITTER = PALETTE.jitter;
  const KIND_COLOR = {wave: "#f97316", contact: "#facc15", objective_lost: "#ef4444", death: "#9ca3af",
                      lose: "#f43f5e", win: "#22c55e", end: "#e5e7eb", message: "#60a5fa", side_change: "#c084fc"};
  const KEY = new Set(["wave", "contact", "objective_lost", "side_change", "end"]);
  const units = new Map(R.units.map((u) => [u.id, u]));
  const teams = new Map(R.teams.map((t) => [t.id, t]));
  const times = R.frames.map((f) => f.t);
  const duration = R.end.duration || times[times.length - 1] || 0;

  // --- decode: one full state per sample (id -> [x, y, hp, flags]) ---------------------------
  const states = [];
  let cur = new Map();
  for (const f of R.frames) {
    cur = new Map(cur);
    for (const id of f.gone) cur.delete(id);
    for (let k = 0; k < f.u.length; k += 5) cur.set(f.u[k], [f.u[k + 1] / Q, f.u[k + 2] / Q, f.u[k + 3], f.u[k + 4]]);
    states.push(cur);
  }

  // --- terrain, drawn once into a W x H bitmap ------------------------------------------------
  const terrainCanvas = document.createElement("canvas");
  terrainCanvas.width = W; terrainCanvas.height = H;
  {
    const img = terrainCanvas.getContext("2d").createImageData(W, H);
    let p = 0;
    for (let k = 0; k < R.terrain.length; k += 2) {
      for (let n = 0; n < R.terrain[k + 1]; n++, p++) {
        const c = TERRAIN[Math.min(R.terrain[k], 3)];
        const jitter = (((Math.imul(p % W, 73856093) ^ Math.imul(Math.floor(p / W), 19349663)) >>> 0) % (2 * JITTER + 1)) - JITTER;
        img.data.set([c[0] + jitter, c[1] + jitter, c[2] + jitter, 255], p * 4);
      }
    }
    terrainCanvas.getContext("2d").putImageData(img, 0, 0);
  }

  const fogCanvas = document.createElement("canvas");
  fogCanvas.width = W; fogCanvas.height = H;
  const fogCtx = fogCanvas.getContext("2d");

  // --- view state -----------------------------------------------------------------------------
  const view = {t: 0, playing: false, speed: 4, zoom: 1, panX: 0, panY: 0, fog: "none", selected: null, last: null};
  const speedSel = $(".rp-speed"), fogSel = $(".rp-fog"), slider = $(".rp-slider"), clock = $(".rp-clock");
  const playBtn = $(".rp-play"), info = $(".rp-info"), caption = $(".rp-caption");
  slider.max = String(duration);
  slider.step = "0.1";
  for (const t of R.teams) {
    const o = document.createElement("option");
    o.value = String(t.id); o.textContent = `T${t.id} ${t.name} sees`;
    fogSel.appendChild(o);
  }
  if (R.fog) {
    const player = R.teams.find((t) => t.player);
    if (player) fogSel.value = view.fog = String(player.id);
  }

  function fit() {
    const cs = getComputedStyle(root);
    const avail = root.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const cssW = Math.min(avail > 0 ? avail : 800, 1100);
    const s = cssW / W;
    canvas.width = Math.round(cssW * devicePixelRatio);
    canvas.height = Math.round(H * s * devicePixelRatio);
    canvas.style.width = cssW + "px";
    canvas.style.height = Math.round(H * s) + "px";
  }
  const baseScale = () => canvas.width / W;
  const scale = () => baseScale() * view.zoom;
  const toScreen = (x, y) => [x * scale() + view.panX, y * scale() + view.panY];
  const toMap = (px, py) => [(px - view.panX) / scale(), (py - view.panY) / scale()];
  // canvas pixels per CSS pixel, as laid out (the page may shrink the canvas)
  const ratio = () => canvas.width / (canvas.getBoundingClientRect().width || canvas.width);
  function canvasPoint(ev) {
    const r = canvas.getBoundingClientRect();
    return [(ev.clientX - r.left) * ratio(), (ev.clientY - r.top) * ratio()];
  }

  function indexAt(t) {
    let lo = 0, hi = times.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (times[mid] <= t + 1e-6) lo = mid; else hi = mid - 1; }
    return lo;
  }

  // positions between two samples are interpolated, so playback is smooth at any speed
  function unitsAt(t) {
    const i = indexAt(t), a = states[i], b = states[Math.min(i + 1, states.length - 1)];
    const span = times[Math.min(i + 1, times.length - 1)] - times[i];
    const f = span > 0 ? Math.min(1, Math.max(0, (t - times[i]) / span)) : 0;
    const out = [];
    for (const [id, s] of a) {
      const n = b.get(id);
      const x = n ? s[0] + (n[0] - s[0]) * f : s[0], y = n ? s[1] + (n[1] - s[1]) * f : s[1];
      out.push({id, x, y, hp: s[2], building: (s[3] & 1) === 1, info: units.get(id)});
    }
    return out;
  }

  function visibleGrid(list, team) {
    const seers = new Set([team, ...(teams.get(team)?.allies || [])]);
    const grid = new Uint8Array(W * H);
    for (const u of list) {
      if (!seers.has(u.info.team) || u.building) continue;
      const r = Math.round(R.types[u.info.type].sight), cx = Math.floor(u.x), cy = Math.floor(u.y);
      for (let dy = -r; dy <= r; dy++) {
        const y = cy + dy;
        if (y < 0 || y >= H) continue;
        for (let dx = -r; dx <= r; dx++) {
          const x = cx + dx;
          if (x >= 0 && x < W && dx * dx + dy * dy <= r * r + r) grid[y * W + x] = 1;
        }
      }
    }
    return grid;
  }

  function glyph(cat, px, py, r) {
    ctx.beginPath();
    if (cat === "bot") ctx.arc(px, py, r, 0, 2 * Math.PI);
    else if (cat === "commander") {
      for (let k = 0; k < 10; k++) {
        const rr = k % 2 ? r * 0.45 : r, a = -Math.PI / 2 + k * Math.PI / 5;
        ctx.lineTo(px + rr * Math.cos(a), py + rr * Math.sin(a));
      }
    } else if (cat === "air") { ctx.moveTo(px, py - r); ctx.lineTo(px + r * 0.95, py + r * 0.8); ctx.lineTo(px - r * 0.95, py + r * 0.8); }
    else if (cat === "defense") { ctx.moveTo(px, py - r); ctx.lineTo(px + r, py); ctx.lineTo(px, py + r); ctx.lineTo(px - r, py); }
    else { const s = r * (cat === "vehicle" || cat === "economy" ? 0.8 : 1); ctx.rect(px - s, py - s, 2 * s, 2 * s); }
    ctx.closePath();
  }

  const MIN_R = {commander: 7, bot: 3.2, vehicle: 3.8, air: 4.4, defense: 4.4, economy: 4.8, factory: 6.5};
  const LAYER = {economy: 0, factory: 0, defense: 1, bot: 2, vehicle: 2, commander: 3, air: 4};

  function draw() {
    const list = unitsAt(view.t);
    view.last = list;
    const s = scale(), k = devicePixelRatio * Math.max(1, Math.sqrt(view.zoom));
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0e1014"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(terrainCanvas, view.panX, view.panY, W * s, H * s);
    const fogTeam = view.fog === "none" ? null : Number(view.fog);
    const grid = fogTeam === null ? null : visibleGrid(list, fogTeam);
    if (grid) {
      const shade = fogCtx.createImageData(W, H);
      for (let p = 0; p < W * H; p++) shade.data[p * 4 + 3] = grid[p] ? 0 : 155;
      fogCtx.putImageData(shade, 0, 0);
      ctx.drawImage(fogCanvas, view.panX, view.panY, W * s, H * s);
    }
    for (const [x, y] of R.deposits) {   // a silver ring with a dark core, as on the frames
      const [px, py] = toScreen(x, y), r = Math.max(3 * devicePixelRatio, 0.4 * s);
      ctx.fillStyle = PALETTE.deposit_fill; ctx.strokeStyle = PALETTE.deposit_edge;
      ctx.beginPath(); ctx.arc(px, py, r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      ctx.fillStyle = PALETTE.deposit_edge;
      ctx.beginPath(); ctx.arc(px, py, 0.42 * r, 0, 2 * Math.PI); ctx.fill();
    }
    drawShapes();
    drawMarkers(false);
    list.sort((a, b) => LAYER[R.types[a.info.type].category] - LAYER[R.types[b.info.type].category]);
    let shown = 0;
    for (const u of list) {
      const type = R.types[u.info.type], cat = type.category;
      if (grid && u.info.team !== fogTeam && !(teams.get(fogTeam)?.allies || []).includes(u.info.team)
          && !grid[Math.floor(u.y) * W + Math.floor(u.x)]) continue;
      shown++;
      const [px, py] = toScreen(u.x, u.y), r = Math.max(type.size * s, MIN_R[cat] * k);
      const color = teams.get(u.info.team)?.color || "#ffffff";
      glyph(cat, px, py, r);
      ctx.lineWidth = Math.max(1, devicePixelRatio);
      if (u.building) { ctx.strokeStyle = color; ctx.lineWidth *= 2; ctx.stroke(); }
      else { ctx.fillStyle = color; ctx.fill(); ctx.strokeStyle = cat === "commander" ? "#ffffff" : "#101216"; ctx.stroke(); }
      if (u.hp < 100) {
        const half = Math.max(3 * k, r), top = py - r - 5 * k;
        ctx.fillStyle = "#141414"; ctx.fillRect(px - half, top, 2 * half, 2.5 * k);
        ctx.fillStyle = u.hp > 60 ? "#4ade80" : u.hp > 30 ? "#facc15" : "#ef4444";
        ctx.fillRect(px - half, top, 2 * half * u.hp / 100, 2.5 * k);
      }
      if (view.selected === u.id) {
        ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 2 * devicePixelRatio;
        ctx.beginPath(); ctx.arc(px, py, r + 4 * devicePixelRatio, 0, 2 * Math.PI); ctx.stroke();
      }
    }
    drawMarkers(true);
    canvas.dataset.t = view.t.toFixed(1);
    canvas.dataset.units = String(shown);
    clock.textContent = `${fmt(view.t)} / ${fmt(duration)}`;
    slider.value = String(view.t);
    const recent = R.events.filter((e) => e.t <= view.t + 1e-6 && view.t - e.t <= 15);
    const key = recent.filter((e) => KEY.has(e.kind)), other = recent.filter((e) => e.kind !== "death");
    caption.textContent = key.length ? key[key.length - 1].label : other.length ? other[other.length - 1].label : "";
    showInfo(list);
  }

  // rules' areas as they were at view.t (the last entry of each id so far)
  function areasNow() {
    const now = new Map();
    for (const a of R.shapes || []) if (a.t <= view.t + 1e-6) now.set(a.id, a);
    return [...now.values()].filter((a) => a.kind !== "gone");
  }

  // outlined under the units; their labels are placed with the markers' labels
  function drawShapes() {
    for (const a of areasNow()) {
      const [x0, y0] = toScreen(a.x - a.half_w, a.y - a.half_h), [x1, y1] = toScreen(a.x + a.half_w, a.y + a.half_h);
      ctx.strokeStyle = a.color; ctx.lineWidth = 2 * devicePixelRatio;
      ctx.beginPath();
      if (a.kind === "circle") ctx.ellipse((x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2, 0, 0, 2 * Math.PI);
      else ctx.rect(x0, y0, x1 - x0, y1 - y0);
      ctx.stroke();
    }
  }

  // rings go under the units; labels (areas' and markers') over them, each beside its point where no
  // other label is, stepped up or down when taken, and left out when there is no free spot near it
  function drawMarkers(labels) {
    const dpr = devicePixelRatio, r = 6 * dpr, lh = 16 * dpr;
    const markers = R.markers.filter((m) => m.t <= view.t + 1e-6);
    if (!labels) {
      for (const m of markers) {
        const [px, py] = toScreen(m.x, m.y);
        ctx.strokeStyle = m.color; ctx.lineWidth = 2 * dpr;
        ctx.beginPath(); ctx.arc(px, py, r, 0, 2 * Math.PI); ctx.stroke();
      }
      return;
    }
    ctx.font = `${Math.round(13 * dpr)}px sans-serif`;
    const wanted = areasNow().filter((a) => a.label).map((a) => [a.label, a.color, ...toScreen(a.x - a.half_w, a.y - a.half_h), 0])
      .concat(markers.filter((m) => m.label).map((m) => [m.label, m.color, ...toScreen(m.x, m.y), r]));
    const placed = [];
    const free = (b) => !placed.some((p) => b[0] < p[2] && p[0] < b[2] && b[1] < p[3] && p[1] < b[3]);
    for (const [text, color, px, py, rr] of wanted) {
      const w = ctx.measureText(text).width + 6 * dpr;
      const right = px + rr + 3 * dpr, left = px - rr - 3 * dpr - w;
      let box = null;
      for (let k = 0; k < 25 && !box; k++) {
        const y = Math.min(Math.max(py - lh / 2 + (k % 2 ? 1 : -1) * Math.ceil(k / 2) * lh, 0), canvas.height - lh);
        for (const x of [right, left]) {
          const cx = Math.min(Math.max(x, 0), canvas.width - w), b = [cx, y, cx + w, y + lh];
          if (!box && free(b)) box = b;
        }
      }
      if (!box) continue;
      placed.push(box);
      ctx.fillStyle = "rgba(8,10,14,0.78)"; ctx.fillRect(box[0], box[1], w, lh);
      ctx.fillStyle = color; ctx.textBaseline = "middle"; ctx.fillText(text, box[0] + 3 * dpr, box[1] + lh / 2);
    }
    ctx.textBaseline = "alphabetic";
    canvas.dataset.labels = JSON.stringify(placed.map((b) => b.map(Math.round)));   // for tests: no two overlap
  }


  function fmt(t) { const s = Math.floor(t); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; }

  function showInfo(list) {
    if (view.selected === null) { info.textContent = "Click a unit for its type and hp."; return; }
    const u = list.find((v) => v.id === view.selected), meta = units.get(view.selected);
    const type = R.types[meta.type], team = teams.get(meta.team);
    if (!u) { info.textContent = `#${meta.id} ${meta.type} (T${meta.team} ${team ? team.name : ""}): not on the field at ${fmt(view.t)}`; return; }
    info.textContent = `#${meta.id} ${meta.type} — ${type.category}, T${meta.team} ${team ? team.name : ""}` +
      `${meta.tag ? ", tag " + meta.tag : ""}: hp ${Math.round(type.hp * u.hp / 100)} / ${type.hp} (${u.hp}%)` +
      `${u.building ? ", under construction" : ""}, at (${u.x.toFixed(1)}, ${u.y.toFixed(1)})`;
  }

  // --- timeline markers -------------------------------------------------------------------------
  const track = $(".rp-markers"), perKind = {};
  for (const e of R.events) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `rp-marker rp-${e.kind}`;
    perKind[e.kind] = (perKind[e.kind] || 0) + 1;
    b.dataset.kind = e.kind; b.dataset.t = String(e.t); b.dataset.n = String(perKind[e.kind]);
    b.style.left = `${duration ? (100 * e.t) / duration : 0}%`;
    b.style.background = KIND_COLOR[e.kind] || "#ffffff";
    b.title = `${fmt(e.t)} ${e.label}`;
    b.addEventListener("click", () => seek(e.t));
    track.appendChild(b);
  }
  const log = $(".rp-events");
  for (const e of R.events.filter((v) => v.kind !== "death")) {
    const li = document.createElement("li");
    const a = document.createElement("button");
    a.type = "button"; a.className = "rp-event-link"; a.textContent = `${fmt(e.t)} ${e.label}`;
    a.style.borderLeftColor = KIND_COLOR[e.kind];
    a.addEventListener("click", () => seek(e.t));
    li.appendChild(a); log.appendChild(li);
  }

  // --- controls -----------------------------------------------------------------------------------
  function seek(t) { view.t = Math.min(duration, Math.max(0, t)); draw(); }
  function setPlaying(on) {
    view.playing = on && view.t < duration;
    playBtn.textContent = view.playing ? "Pause" : "Play";
    if (view.playing) { lastFrame = performance.now(); requestAnimationFrame(tick); }
  }
  let lastFrame = 0;
  function tick(now) {
    if (!view.playing) return;
    view.t = Math.min(duration, view.t + ((now - lastFrame) / 1000) * view.speed);
    lastFrame = now;
    draw();
    if (view.t >= duration) setPlaying(false); else requestAnimationFrame(tick);
  }
  playBtn.addEventListener("click", () => { if (view.t >= duration) view.t = 0; setPlaying(!view.playing); });
  speedSel.addEventListener("change", () => { view.speed = Number(speedSel.value); });
  fogSel.addEventListener("change", () => { view.fog = fogSel.value; draw(); });
  slider.addEventListener("input", () => seek(Number(slider.value)));
  $(".rp-reset").addEventListener("click", () => { view.zoom = 1; view.panX = view.panY = 0; draw(); });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [px, py] = canvasPoint(ev), [mx, my] = toMap(px, py);
    view.zoom = Math.min(16, Math.max(1, view.zoom * (ev.deltaY < 0 ? 1.25 : 0.8)));
    view.panX = px - mx * scale(); view.panY = py - my * scale();
    draw();
  }, {passive: false});
  let drag = null;
  canvas.addEventListener("mousedown", (ev) => { drag = {x: ev.clientX, y: ev.clientY, px: view.panX, py: view.panY, moved: false}; });
  window.addEventListener("mousemove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    view.panX = drag.px + dx * ratio(); view.panY = drag.py + dy * ratio();
    if (drag.moved) draw();
  });
  window.addEventListener("mouseup", (ev) => {
    if (drag && !drag.moved) pick(ev);
    drag = null;
  });
  function pick(ev) {
    const [px, py] = canvasPoint(ev);
    let best = null, bestD = 14 * devicePixelRatio;
    for (const u of view.last || []) {
      const [ux, uy] = toScreen(u.x, u.y), d = Math.hypot(ux - px, uy - py);
      if (d < bestD) { best = u; bestD = d; }
    }
    view.selected = best ? best.id : null;
    draw();
  }
  window.addEventListener("resize", () => { fit(); draw(); });
  speedSel.value = String(view.speed);
  fit();
  draw();
  root.dataset.ready = "1";
})();
