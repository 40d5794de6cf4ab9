// Every visible text on the page whose contrast with what is behind it is under WCAG AA
// (4.5:1, or 3:1 for large text: 24 px, or 18.66 px bold). Colours are blended with their alpha
// over the first opaque background found up the tree. Returns [{text, ratio, color, background}].
(() => {
  const canvas = document.createElement('canvas'); canvas.width = canvas.height = 1;
  const paint = canvas.getContext('2d', {willReadFrequently: true});
  const parse = (c) => {  // any CSS colour (rgb, oklch, …) as [r, g, b, alpha], through a 1-pixel canvas
    if (!c || c === 'transparent') return null;
    paint.clearRect(0, 0, 1, 1); paint.fillStyle = '#000'; paint.fillStyle = c; paint.fillRect(0, 0, 1, 1);
    const d = paint.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2], d[3] / 255]; };
  const blend = (top, bottom) => { const a = top[3]; return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]); };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const background = (el) => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let base = document.body.classList.contains('body--dark') ? [18, 18, 18, 1] : [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) base = blend(layers[i], base);
    return base; };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim(); if (!text) continue;
    const el = n.parentElement; if (!el || el.closest('header, .q-notification, .q-tooltip, [aria-hidden="true"], .material-icons, i')) continue;
    const r = el.getBoundingClientRect(); if (r.width === 0 || r.height === 0) continue;
    const s = getComputedStyle(el); if (s.visibility === 'hidden' || Number(s.opacity) === 0) continue;
    if (el.closest('.disabled, [disabled]')) continue;  // WCAG exempts inactive controls
    const bg = background(el); const fg = blend(parse(s.color) || [0, 0, 0, 1], bg);
    let op = 1; for (let e = el; e; e = e.parentElement) op *= Number(getComputedStyle(e).opacity);
    const shown = blend([...fg.slice(0, 3), op], bg);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = (size >= 24 || (bold && size >= 18.66)) ? 3 : 4.5;
    const got = ratio(shown, bg);
    if (got < need) out.push({text: text.slice(0, 60), ratio: Math.round(got * 100) / 100, need,
                              color: s.color, background: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`});
  }
  return out;
})()
