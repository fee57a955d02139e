// headscan annotate: the page. Plain JavaScript, no libraries, works offline.
// Every URL is relative, so it carries the run's token (the page lives at /TOKEN/).
'use strict';

const NAMES = ['nasion', 'noseTip', 'leftEar', 'rightEar'];
const LABELS = { nasion: 'nasion', noseTip: 'nose tip', leftEar: 'left tragion', rightEar: 'right tragion' };
const COLOURS = { nasion: '#ff9f1c', noseTip: '#ffe14d', leftEar: '#2ec4f1', rightEar: '#f15bb5' };

const state = {
  scan: null,            // api/scan
  frame: 0,              // frame shown
  selected: 'nasion',
  landmarks: {},         // name → {frame, u, v} or {x, y, z}
  lifts: {},             // name → api Lift
  proposals: {},         // name → {point, confidence}
  evaluation: null,
  frameInfo: null,       // api/frames/N/info of the frame shown
  image: null, depthImage: null,
  view: { s: 1, ox: 0, oy: 0, fitted: false },
  cloud: null,           // {points, colors, overviewFromWorld}
  dirty: false,
  saved: null,
};

const $ = (id) => document.getElementById(id);
const imageCanvas = $('image');
const stripCanvas = $('strip');

// Read by the browser test: where an image pixel appears in the page, and what the page holds.
window.headscanAnnotate = {
  state,
  ready: false,
  imageToClient(u, v) {
    const r = imageCanvas.getBoundingClientRect();
    return { x: r.left + state.view.ox + (u + 0.5) * state.view.s, y: r.top + state.view.oy + (v + 0.5) * state.view.s };
  },
  clientToImage(x, y) {
    const r = imageCanvas.getBoundingClientRect();
    return clientToImage(x - r.left, y - r.top);
  },
};

async function api(path, body) {
  const response = await fetch(path, body === undefined ? { cache: 'no-store' } : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(json.error || `HTTP ${response.status}`);
  return json;
}

// ---- Start-up: wait for the reconstruction, then load the scan. ----

async function waitForReconstruction() {
  for (;;) {
    let status;
    try { status = await api('api/status'); } catch (e) { setProgress(0, 'server not reachable: ' + e.message, 'failed'); return false; }
    if (status.state === 'ready') return true;
    if (status.state === 'failed') { setProgress(1, 'reconstruction failed: ' + status.error, 'failed'); return false; }
    const fraction = status.total > 0 ? status.done / status.total : 0;
    setProgress(fraction, `reconstructing: ${status.stage} ${status.done}/${status.total}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

function setProgress(fraction, text, kind) {
  $('progress-bar').style.width = `${Math.round(100 * fraction)}%`;
  $('progress-text').textContent = text;
  $('progress').className = 'progress' + (kind ? ' ' + kind : '');
}

async function start() {
  buildLandmarkList();
  if (!(await waitForReconstruction())) return;
  state.scan = await api('api/scan');
  const s = state.scan;
  $('scan-name').textContent = s.scan;
  setProgress(1, `${s.framesRegistered} of ${s.frames.length} frames registered · ${s.markersDetected} markers · landmarks file ${s.landmarksPath}` +
    (s.proposalProblem ? ` · no proposals: ${s.proposalProblem}` : ''), 'done');
  for (const entry of s.landmarks) state.landmarks[entry.name] = entryPosition(entry);
  for (const p of s.proposals) state.proposals[p.name] = p;
  $('slider').max = String(s.frames.length - 1);
  $('save').disabled = false;
  const first = NAMES.map((n) => state.landmarks[n]).find((p) => p && p.frame !== undefined);
  const registered = s.frames.find((f) => f.registered);
  await showFrame(first ? first.frame : registered ? registered.frame : 0);
  state.cloud = await api('api/cloud');
  await evaluate();
  window.headscanAnnotate.ready = true;
  document.body.dataset.ready = 'true';
}

function entryPosition(e) {
  return e.frame !== undefined && e.frame !== null ? { frame: e.frame, u: e.u, v: e.v } : { x: e.x, y: e.y, z: e.z };
}

function entries() {
  return NAMES.filter((n) => state.landmarks[n]).map((n) => Object.assign({ name: n }, state.landmarks[n]));
}

// ---- Landmark list ----

function buildLandmarkList() {
  const list = $('landmarks');
  NAMES.forEach((name, i) => {
    const li = document.createElement('li');
    li.dataset.landmark = name;
    li.innerHTML = `<span class="key">${i + 1}</span><span class="name">${LABELS[name]}</span>
      <button data-action="go" title="Show its frame (g)">go</button><button data-action="accept" title="Accept the proposal (a)" hidden>accept</button>
      <button data-action="clear" title="Clear (Delete)">clear</button>
      <div class="where"></div><div class="point"></div><div class="proposal"></div><div class="warn"></div>`;
    li.querySelector('.key').style.background = COLOURS[name]; // set through the DOM: the page's CSP allows no inline style
    li.addEventListener('click', (event) => {
      const action = event.target.dataset && event.target.dataset.action;
      select(name);
      if (action === 'go') goToLandmark();
      if (action === 'accept') acceptProposal();
      if (action === 'clear') clearLandmark();
    });
    list.appendChild(li);
  });
  select('nasion');
}

function select(name) {
  state.selected = name;
  for (const li of $('landmarks').children) li.classList.toggle('selected', li.dataset.landmark === name);
  drawImage();
}

function fmt(x, digits) { return Number(x).toFixed(digits); }

function updateLandmarkList() {
  for (const li of $('landmarks').children) {
    const name = li.dataset.landmark;
    const p = state.landmarks[name];
    const lift = state.lifts[name];
    li.querySelector('.where').textContent = !p ? 'not placed' :
      p.frame !== undefined ? `frame ${p.frame}  u ${fmt(p.u, 1)}  v ${fmt(p.v, 1)}` : 'a world point (from the file)';
    li.querySelector('.point').textContent = lift && lift.point ?
      `world ${lift.point.map((c) => fmt(c * 1000, 1)).join(', ')} mm` : '';
    li.querySelector('.warn').textContent = lift && lift.warning ? '⚠ ' + lift.warning : '';
    const proposal = state.proposals[name];
    li.querySelector('.proposal').textContent = proposal ? `proposal, confidence ${fmt(proposal.confidence, 2)}` : '';
    li.querySelector('[data-action=accept]').hidden = !proposal;
  }
}

// ---- Frames ----

async function showFrame(index) {
  const frames = state.scan.frames;
  index = Math.max(0, Math.min(frames.length - 1, index));
  state.frame = index;
  $('slider').value = String(index);
  const image = loadImage(`api/frames/${index}/color.png`);
  const depth = $('show-depth').checked ? loadImage(`api/frames/${index}/depth.png`) : Promise.resolve(null);
  const info = api(`api/frames/${index}/info`);
  const [img, depthImg, frameInfo] = await Promise.all([image, depth, info]);
  if (state.frame !== index) return; // a newer request won
  state.image = img; state.depthImage = depthImg; state.frameInfo = frameInfo;
  if (!state.view.fitted) fitView();
  describeFrame();
  drawImage(); drawStrip();
}

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('cannot load ' + url));
    img.src = url;
  });
}

function describeFrame() {
  const f = state.scan.frames[state.frame];
  const pose = f.registered ? 'registered' : `<span class="bad">no pose${f.rejection ? ': ' + escapeHTML(f.rejection) : ''}</span>`;
  const coverage = f.depthCoverage === null || f.depthCoverage === undefined ? '?' : `${Math.round(100 * f.depthCoverage)} %`;
  $('frame-info').innerHTML = `frame ${f.frame} / ${state.scan.frames.length - 1} · t ${fmt(f.timestamp, 2)} s · ${pose} · depth ${coverage} · ` +
    `markers ${f.markers.length} (${f.linked.length} linked, ${f.firstSeen.length} new)` +
    (f.bandCoveragePercent === null || f.bandCoveragePercent === undefined ? '' : ` · band ${Math.round(f.bandCoveragePercent)} % covered`) +
    (f.missing ? (f.missing.length ? ` · missing ${escapeHTML(f.missing.join(', '))}` : ' · nothing missing') : '');
}

function escapeHTML(s) { return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

function drawStrip() {
  if (!state.scan) return;
  const frames = state.scan.frames;
  const ratio = window.devicePixelRatio || 1;
  const width = stripCanvas.clientWidth, height = stripCanvas.clientHeight;
  stripCanvas.width = width * ratio; stripCanvas.height = height * ratio;
  const ctx = stripCanvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const step = width / frames.length;
  const barTop = 10, barHeight = height - 14;
  frames.forEach((f, i) => {
    const coverage = f.depthCoverage === null || f.depthCoverage === undefined ? 1 : f.depthCoverage;
    const h = Math.max(2, barHeight * coverage);
    ctx.fillStyle = f.registered ? '#4f9a5a' : '#d9a2a2';
    ctx.fillRect(i * step, barTop + barHeight - h, Math.max(1, step - (step > 3 ? 1 : 0)), h);
    // The recorder app's overlap colour: green when a marker links it to earlier frames, red when all are new.
    if (f.markers.length > 0) {
      ctx.fillStyle = f.linked.length > 0 ? '#1fa83a' : '#e0302a';
      ctx.fillRect(i * step, height - 3, Math.max(1, step), 3);
    }
  });
  // Live coverage: the share of the band round the measurement level seen so far (blue line).
  ctx.strokeStyle = '#2a6fdb'; ctx.lineWidth = 1.5; ctx.beginPath();
  let drawing = false;
  frames.forEach((f, i) => {
    if (f.bandCoveragePercent === null || f.bandCoveragePercent === undefined) { drawing = false; return; }
    const x = (i + 0.5) * step, y = barTop + barHeight * (1 - f.bandCoveragePercent / 100);
    if (drawing) ctx.lineTo(x, y); else ctx.moveTo(x, y);
    drawing = true;
  });
  ctx.stroke();
  for (const name of NAMES) {
    const p = state.landmarks[name];
    if (!p || p.frame === undefined) continue;
    ctx.fillStyle = COLOURS[name];
    ctx.beginPath(); ctx.arc((p.frame + 0.5) * step, 5, 4, 0, 2 * Math.PI); ctx.fill();
  }
  ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
  ctx.strokeRect(state.frame * step, barTop - 1, Math.max(2, step), barHeight + 2);
}

// ---- The image: view transform, drawing, placing ----

function fitView() {
  if (!state.image) return;
  const w = imageCanvas.clientWidth, h = imageCanvas.clientHeight;
  const s = Math.min(w / state.image.width, h / state.image.height);
  state.view = { s, ox: (w - s * state.image.width) / 2, oy: (h - s * state.image.height) / 2, fitted: true };
}

function clientToImage(x, y) {
  return { u: (x - state.view.ox) / state.view.s - 0.5, v: (y - state.view.oy) / state.view.s - 0.5 };
}

function imageToCanvas(u, v) {
  return { x: state.view.ox + (u + 0.5) * state.view.s, y: state.view.oy + (v + 0.5) * state.view.s };
}

function zoom(factor, x, y) {
  const v = state.view;
  const s = Math.max(0.2, Math.min(40, v.s * factor));
  const k = s / v.s;
  state.view = { s, ox: x - (x - v.ox) * k, oy: y - (y - v.oy) * k, fitted: true };
  drawImage();
}

function drawImage() {
  const ratio = window.devicePixelRatio || 1;
  const w = imageCanvas.clientWidth, h = imageCanvas.clientHeight;
  if (imageCanvas.width !== w * ratio || imageCanvas.height !== h * ratio) { imageCanvas.width = w * ratio; imageCanvas.height = h * ratio; }
  const ctx = imageCanvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  if (!state.image) return;
  const v = state.view;
  ctx.imageSmoothingEnabled = v.s < 2;
  ctx.drawImage(state.image, v.ox, v.oy, state.image.width * v.s, state.image.height * v.s);
  if (state.depthImage && $('show-depth').checked) {
    ctx.drawImage(state.depthImage, v.ox, v.oy, state.image.width * v.s, state.image.height * v.s);
  }
  const info = state.frameInfo;
  if (info && info.frame === state.frame && $('show-markers').checked) {
    ctx.lineWidth = 2; ctx.font = '12px "DejaVu Sans", sans-serif';
    for (const m of info.markers) {
      const colour = m.state === 'green' ? '#1fa83a' : '#e0302a';
      ctx.strokeStyle = colour; ctx.beginPath();
      m.corners.forEach((c, i) => { const p = imageToCanvas(c[0], c[1]); if (i === 0) ctx.moveTo(p.x, p.y); else ctx.lineTo(p.x, p.y); });
      ctx.closePath(); ctx.stroke();
      const c0 = imageToCanvas(m.corners[0][0], m.corners[0][1]);
      ctx.fillStyle = colour; ctx.fillText(String(m.id), c0.x + 2, c0.y - 3);
    }
  }
  if (info && info.frame === state.frame) {
    for (const p of info.proposals) {
      const c = imageToCanvas(p.u, p.v);
      ctx.setLineDash([4, 3]); ctx.lineWidth = 2; ctx.strokeStyle = COLOURS[p.name];
      ctx.globalAlpha = p.visible ? 0.9 : 0.4;
      ctx.beginPath(); ctx.arc(c.x, c.y, 9, 0, 2 * Math.PI); ctx.stroke();
      ctx.setLineDash([]); ctx.globalAlpha = 1;
      ctx.fillStyle = COLOURS[p.name]; ctx.fillText(`${LABELS[p.name]}? ${fmt(p.confidence, 2)}`, c.x + 11, c.y + 4);
    }
  }
  for (const name of NAMES) {
    const p = state.landmarks[name];
    if (!p || p.frame !== state.frame) continue;
    const c = imageToCanvas(p.u, p.v);
    ctx.lineWidth = name === state.selected ? 3 : 2; ctx.strokeStyle = '#000'; ctx.fillStyle = COLOURS[name];
    ctx.beginPath(); ctx.arc(c.x, c.y, 6, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(c.x - 12, c.y); ctx.lineTo(c.x - 7, c.y); ctx.moveTo(c.x + 7, c.y); ctx.lineTo(c.x + 12, c.y);
    ctx.moveTo(c.x, c.y - 12); ctx.lineTo(c.x, c.y - 7); ctx.moveTo(c.x, c.y + 7); ctx.lineTo(c.x, c.y + 12); ctx.stroke();
  }
}

function canvasPoint(event) {
  window.headscanAnnotate.lastPointer = { x: event.clientX, y: event.clientY };
  const r = imageCanvas.getBoundingClientRect();
  return { x: event.clientX - r.left, y: event.clientY - r.top };
}

let drag = null; // {kind: 'place'|'pan', x, y}

imageCanvas.addEventListener('pointerdown', (event) => {
  if (!state.image) return;
  imageCanvas.setPointerCapture(event.pointerId);
  const p = canvasPoint(event);
  if (event.button === 2 || event.button === 1 || event.altKey) {
    drag = { kind: 'pan', x: p.x, y: p.y };
  } else if (event.button === 0) {
    drag = { kind: 'place' };
    place(p);
  }
  event.preventDefault();
});
imageCanvas.addEventListener('pointermove', (event) => {
  if (!drag) return;
  const p = canvasPoint(event);
  if (drag.kind === 'pan') {
    state.view.ox += p.x - drag.x; state.view.oy += p.y - drag.y; drag.x = p.x; drag.y = p.y; drawImage();
  } else place(p);
});
imageCanvas.addEventListener('pointerup', (event) => {
  if (!drag) return;
  const wasPlacing = drag.kind === 'place';
  if (wasPlacing) place(canvasPoint(event));
  drag = null;
  if (wasPlacing) evaluate();
});
imageCanvas.addEventListener('contextmenu', (event) => event.preventDefault());
imageCanvas.addEventListener('wheel', (event) => {
  const p = canvasPoint(event);
  zoom(event.deltaY < 0 ? 1.25 : 0.8, p.x, p.y);
  event.preventDefault();
}, { passive: false });

function place(p) {
  const { u, v } = clientToImage(p.x, p.y);
  if (u < -0.5 || v < -0.5 || u >= state.image.width - 0.5 || v >= state.image.height - 0.5) return;
  state.landmarks[state.selected] = { frame: state.frame, u, v };
  delete state.lifts[state.selected];
  markDirty();
  drawImage(); drawStrip(); updateLandmarkList();
}

function markDirty() {
  state.dirty = true;
  $('save-status').textContent = 'unsaved changes';
}

// ---- Server evaluation: lifts, preview, views ----

let evaluating = Promise.resolve();
function evaluate() {
  evaluating = evaluating.then(async () => {
    try {
      state.evaluation = await api('api/evaluate', { landmarks: entries() });
      state.lifts = {};
      for (const lift of state.evaluation.lifts) state.lifts[lift.name] = lift;
    } catch (e) {
      state.evaluation = { lifts: [], previewProblem: e.message };
    }
    updateLandmarkList(); updatePreview(); drawViews();
  });
  return evaluating;
}

function updatePreview() {
  const e = state.evaluation;
  const box = $('preview');
  if (e && e.preview) {
    const p = e.preview;
    box.innerHTML = `<table>
      <tr><td>CVAI</td><td class="num cvai">${fmt(p.cvai, 2)} %</td><td>severity</td><td class="num">${p.severity}</td></tr>
      <tr><td>CVA</td><td class="num">${fmt(p.cva, 1)} mm</td><td>CI</td><td class="num">${fmt(p.ci, 1)}</td></tr>
      <tr><td>diagonal A</td><td class="num">${fmt(p.diagonalA, 1)} mm</td><td>diagonal B</td><td class="num">${fmt(p.diagonalB, 1)} mm</td></tr>
      <tr><td>length</td><td class="num">${fmt(p.length, 1)} mm</td><td>width</td><td class="num">${fmt(p.width, 1)} mm</td></tr>
      <tr><td>circumference</td><td class="num">${fmt(p.circumference, 1)} mm</td><td>level</td><td class="num">${fmt(p.measurementLevel, 1)} mm</td></tr>
      </table>`;
  } else if (e && e.previewProblem) {
    box.innerHTML = `<span class="problem">${escapeHTML(e.previewProblem)}</span>`;
  } else {
    const missing = NAMES.filter((n) => !state.landmarks[n]).map((n) => LABELS[n]);
    box.textContent = missing.length ? `Place ${missing.join(', ')}.` : 'A landmark cannot be lifted (see its warning).';
  }
}

function transformOf(t) {
  return (p) => {
    const r = t.rotation, q = t.translation;
    return [r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + q[0], r[3] * p[0] + r[4] * p[1] + r[5] * p[2] + q[1], r[6] * p[0] + r[7] * p[1] + r[8] * p[2] + q[2]];
  };
}

// Top: anterior (x) up, infant's left (y) to the left. Side: anterior right, up (z) up. Front: infant's left right, up up.
const VIEWS = [
  { id: 'view-top', axes: (h) => [-h[1], h[0]] },
  { id: 'view-side', axes: (h) => [h[0], h[2]] },
  { id: 'view-front', axes: (h) => [h[1], h[2]] },
];

function drawViews() {
  if (!state.cloud) return;
  const frame = state.evaluation && state.evaluation.headFromWorld ? state.evaluation.headFromWorld : state.cloud.overviewFromWorld;
  const toFrame = transformOf(frame);
  const pts = state.cloud.points, cols = state.cloud.colors;
  const head = [];
  for (let i = 0; i + 2 < pts.length; i += 3) head.push(toFrame([pts[i], pts[i + 1], pts[i + 2]]));
  const marks = [];
  for (const name of NAMES) {
    const lift = state.lifts[name];
    if (lift && lift.point) marks.push({ name, h: toFrame(lift.point), ghost: false });
    const proposal = state.proposals[name];
    if (proposal) marks.push({ name, h: toFrame(proposal.point), ghost: true });
  }
  for (const view of VIEWS) {
    const canvas = $(view.id);
    const ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const flat = head.map(view.axes);
    if (flat.length === 0) continue;
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (const [x, y] of flat) { minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
    const scale = 0.9 * Math.min(canvas.width / (maxX - minX || 1), canvas.height / (maxY - minY || 1));
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
    const at = ([x, y]) => [canvas.width / 2 + (x - cx) * scale, canvas.height / 2 - (y - cy) * scale];
    flat.forEach((p, i) => {
      const [x, y] = at(p);
      ctx.fillStyle = `rgba(${cols[3 * i]},${cols[3 * i + 1]},${cols[3 * i + 2]},0.55)`;
      ctx.fillRect(x - 1, y - 1, 2, 2);
    });
    for (const m of marks) {
      const [x, y] = at(view.axes(m.h));
      ctx.strokeStyle = '#000'; ctx.fillStyle = COLOURS[m.name]; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.arc(x, y, m.ghost ? 6 : 5, 0, 2 * Math.PI);
      if (m.ghost) { ctx.setLineDash([3, 2]); ctx.strokeStyle = COLOURS[m.name]; ctx.stroke(); ctx.setLineDash([]); } else { ctx.fill(); ctx.stroke(); }
    }
  }
}

// ---- Actions ----

async function goToLandmark() {
  const p = state.landmarks[state.selected];
  if (p && p.frame !== undefined) await showFrame(p.frame);
}

async function acceptProposal() {
  const name = state.selected;
  if (!state.proposals[name]) return;
  try {
    const entry = await api('api/accept', { name });
    state.landmarks[name] = entryPosition(entry);
    markDirty();
    if (entry.frame !== undefined && entry.frame !== null) await showFrame(entry.frame);
    await evaluate();
    drawStrip();
  } catch (e) { $('save-status').textContent = e.message; }
}

function clearLandmark() {
  delete state.landmarks[state.selected];
  markDirty();
  drawImage(); drawStrip(); evaluate();
}

async function save() {
  if (!state.scan) return;
  await evaluating;
  try {
    const result = await api('api/save', { landmarks: entries() });
    state.dirty = false;
    state.saved = result.saved;
    $('save-status').textContent = `saved ${result.saved}` + (result.backup ? ` (previous kept as ${result.backup})` : '');
    document.body.dataset.saved = result.saved;
  } catch (e) {
    $('save-status').textContent = 'not saved: ' + e.message;
    document.body.dataset.saveError = e.message;
  }
}

$('save').addEventListener('click', save);
$('slider').addEventListener('input', () => showFrame(Number($('slider').value)));
stripCanvas.addEventListener('click', (event) => {
  if (!state.scan) return;
  const r = stripCanvas.getBoundingClientRect();
  showFrame(Math.floor((event.clientX - r.left) / r.width * state.scan.frames.length));
});
$('show-markers').addEventListener('change', drawImage);
$('show-depth').addEventListener('change', () => showFrame(state.frame));
window.addEventListener('resize', () => { state.view.fitted = false; fitView(); drawImage(); drawStrip(); });
window.addEventListener('beforeunload', (event) => { if (state.dirty) { event.preventDefault(); event.returnValue = ''; } });

document.addEventListener('keydown', (event) => {
  if (!state.scan || event.target.tagName === 'INPUT' && event.target.type !== 'checkbox' && event.target.type !== 'range') return;
  const key = event.key;
  const centre = () => [imageCanvas.clientWidth / 2, imageCanvas.clientHeight / 2];
  if ((event.ctrlKey || event.metaKey) && key.toLowerCase() === 's') { save(); }
  else if (['1', '2', '3', '4'].includes(key)) select(NAMES[Number(key) - 1]);
  else if (key === 'ArrowRight') showFrame(state.frame + (event.shiftKey ? 10 : 1));
  else if (key === 'ArrowLeft') showFrame(state.frame - (event.shiftKey ? 10 : 1));
  else if (key === '+' || key === '=') zoom(1.25, ...centre());
  else if (key === '-') zoom(0.8, ...centre());
  else if (key === '0') { state.view.fitted = false; fitView(); drawImage(); }
  else if (key === 'a') acceptProposal();
  else if (key === 'g') goToLandmark();
  else if (key === 'Delete' || key === 'Backspace') clearLandmark();
  else if (key === 'm') { $('show-markers').checked = !$('show-markers').checked; drawImage(); }
  else if (key === 'd') { $('show-depth').checked = !$('show-depth').checked; showFrame(state.frame); }
  else return;
  event.preventDefault();
});

start();
