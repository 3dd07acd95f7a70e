// Added by the browser test (report/browser.rs) to a copy of a report
// page, never to the page itself: once the page has loaded, it reads what
// the browser laid out and leaves it, as JSON, in a hidden <pre> for
// --dump-dom. It only reads; it loads nothing and logs nothing, so any
// console message comes from the page.
"use strict";
const blocked = [];
document.addEventListener("securitypolicyviolation", (e) => {
  blocked.push(e.blockedURI || e.violatedDirective);
});

function box(el) {
  const r = el.getBoundingClientRect();
  return { left: r.left, right: r.right, width: r.width, height: r.height };
}

function visible(el) {
  const style = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  return (
    el.getClientRects().length > 0 &&
    style.visibility === "visible" &&
    Number(style.opacity) > 0 &&
    r.width > 0 &&
    r.height > 0
  );
}

// Whether an ancestor of `el` inside `main` scrolls or clips it: a wide
// table scrolls in its frame by design.
function contained(el, main) {
  for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== "visible") return true;
  }
  return false;
}

window.addEventListener("load", () => {
  const main = document.querySelector("main");
  const style = getComputedStyle(main);
  const edge = main.getBoundingClientRect();
  const inner = {
    left: edge.left + parseFloat(style.paddingLeft),
    right: edge.right - parseFloat(style.paddingRight),
  };
  const charts = [...document.querySelectorAll("figure.chart")].map((f) => {
    const svg = f.querySelector(":scope > svg");
    const caption = f.querySelector("figcaption");
    return {
      file: caption ? caption.textContent : "",
      drawn: svg !== null,
      visible: svg !== null && visible(svg),
      inside:
        svg !== null &&
        box(svg).left >= box(f).left - 0.5 &&
        box(svg).right <= box(f).right + 0.5,
      marks: svg === null ? 0 : svg.querySelectorAll("path, polyline, line, circle, rect, text").length,
    };
  });
  const tables = [...document.querySelectorAll(".table-wrap > table")].map((t) => {
    const file = t.closest("section").querySelector("h3 > .file");
    return {
      file: file ? file.textContent : "",
      visible: visible(t),
      rows: t.tBodies.length > 0 ? t.tBodies[0].rows.length : 0,
    };
  });
  // How many columns the sets of each group of one kind stand in.
  const groups = [...document.querySelectorAll(".group.side-by-side")].map((g) => {
    const sets = [...g.querySelectorAll(":scope > section.set")];
    return { sets: sets.length, columns: new Set(sets.map((s) => Math.round(box(s).left))).size };
  });
  // Everything laid out in the page's column stays in it, but what a
  // frame scrolls and the drawing inside a chart.
  const overflowing = [];
  for (const el of main.querySelectorAll("*:not(svg *)")) {
    if (el.getClientRects().length === 0 || contained(el, main)) continue;
    const r = box(el);
    if (r.width > 0 && (r.right > inner.right + 1 || r.left < inner.left - 1)) {
      const id = el.id ? "#" + el.id : el.className ? "." + String(el.className).split(" ")[0] : "";
      overflowing.push(`<${el.tagName.toLowerCase()}${id}> spans ${r.left.toFixed(0)}-${r.right.toFixed(0)} px, the column ${inner.left.toFixed(0)}-${inner.right.toFixed(0)}`);
    }
  }
  const doc = document.documentElement;
  const out = document.createElement("pre");
  out.id = "tpsim-check";
  out.hidden = true;
  // < > & written as JSON escapes, so the dumped DOM holds the JSON as is.
  out.textContent = JSON.stringify({
    blocked,
    charts,
    tables,
    groups,
    overflowing,
    page_width: doc.scrollWidth,
    view_width: doc.clientWidth,
  }).replace(/[<>&]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  document.body.append(out);
});
