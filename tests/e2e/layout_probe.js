// Injected by browser_html.sh into a copy of a report (the report itself
// runs no script and forbids it). Measures the laid-out page and writes
// what it found as JSON into <pre id="layout-result"> for --dump-dom:
//   sections: the ids of <section>s that have a rendered height;
//   overlaps: text drawn over a bar, or over other text, in any <svg>;
//   overflow: tables and cells wider than the page (print emulation) or
//             whose content is cut;
//   colors: the body's computed colours (dark mode check).
(function () {
  var out = {sections: [], overlaps: [], overflow: [], colors: {}, svgs: 0, texts: 0};
  function box(e) { return e.getBoundingClientRect(); }
  function hit(a, b) {
    // 0.5 px of slack: touching edges are not an overlap.
    return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
           a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  }
  function label(e) {
    var s = '';  // the drawn text, not the <title> tooltip inside it
    e.childNodes.forEach(function (c) { if (c.nodeType === 3) s += c.data; });
    if (!s && e.querySelector('title')) s = e.querySelector('title').textContent;
    return (e.getAttribute('class') || e.tagName) + ' "' + s.replace(/\s+/g, ' ').slice(0, 40) + '"';
  }
  document.querySelectorAll('section').forEach(function (s) {
    if (s.id && box(s).height > 0) out.sections.push(s.id);
  });
  document.querySelectorAll('svg').forEach(function (svg, n) {
    out.svgs++;
    // Direct text only: a <title> tooltip is never drawn.
    var texts = [], bars = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var b = box(t);
      if (b.width > 0 && b.height > 0) texts.push([t, b]);
    });
    svg.querySelectorAll('rect.hold, rect.idle, rect.stmt, rect.wait, path.depth, circle')
      .forEach(function (r) {
        var b = box(r);
        if (b.width > 0 && b.height > 0 && !r.closest('text')) bars.push([r, b]);
      });
    out.texts += texts.length;
    var where = (svg.closest('figure, article, section') || {}).id || ('svg' + n);
    texts.forEach(function (t, i) {
      // A deadlock node's label sits inside its own circle by design.
      bars.forEach(function (r) {
        if (r[0].tagName === 'circle' && r[0].parentNode === t[0].parentNode) return;
        if (hit(t[1], r[1]))
          out.overlaps.push(where + ': ' + label(t[0]) + ' over ' + label(r[0]));
      });
      for (var j = i + 1; j < texts.length; j++)
        if (hit(t[1], texts[j][1]))
          out.overlaps.push(where + ': ' + label(t[0]) + ' over ' + label(texts[j][0]));
    });
  });
  var page = box(document.body);
  // A section printed on landscape pages (CSS `page: wide`) has Letter's
  // landscape width, 965 px (279.4 mm less 2 x 12 mm), where the portrait
  // page has 703 px.
  var LANDSCAPE = 965;
  document.querySelectorAll('table, svg, figure, pre, code').forEach(function (e) {
    if (e.closest('details:not([open])')) return;  // folded: not laid out
    // On screen a wide table scrolls in its .scroll box; in print it must fit.
    var sc = e.closest('.scroll');
    if (sc && getComputedStyle(sc).overflowX === 'auto') return;
    var b = box(e), sec = e.closest('section');
    var right = sec && getComputedStyle(sec).page === 'wide' ?
        page.left + LANDSCAPE : page.right;
    if (b.width > 0 && b.right > right + 1)
      out.overflow.push(e.tagName + ' in #' + ((e.closest('section') || {}).id) +
                        ' ends at ' + Math.round(b.right) + ' > page ' + Math.round(right));
  });
  document.querySelectorAll('td, th').forEach(function (c) {
    if (c.closest('details:not([open])')) return;
    if (c.scrollWidth > c.clientWidth + 1)
      out.overflow.push('cell in #' + ((c.closest('section') || {}).id) + ' cut: ' +
                        c.scrollWidth + ' > ' + c.clientWidth + ' ' + label(c));
  });
  var cs = getComputedStyle(document.body);
  out.colors = {background: cs.backgroundColor, color: cs.color};
  out.width = Math.round(page.width);
  out.height = Math.round(document.documentElement.scrollHeight);
  var pre = document.createElement('pre');
  pre.id = 'layout-result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
