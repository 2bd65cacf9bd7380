#include "report/assets.hpp"

namespace sextant::report {

// Rules this script keeps: every string from the data reaches the DOM through textContent or
// through ECharts (which draws text as SVG text nodes); tooltips are DOM elements built here, not
// HTML strings; nothing is fetched, so the file works offline and under the page's CSP.
const char* const kPageScript = R"JS(
(function () {
  'use strict';
  var MAX_ROWS = 500;
  var data = JSON.parse(document.getElementById('sextant-data').textContent);
  var result = data.result, page = data.page;
  // Decimal text of integers a parsed number cannot show (1e15 and beyond; past 2^53 JSON.parse
  // loses digits: a seed of 9007199254740993 read "9.007e+15", 2026-12-06 review), by scalar name
  // and by table, column and row.
  var exact = data.exact || { scalars: {}, tables: {} };
  function has(o, k) { return !!o && Object.prototype.hasOwnProperty.call(o, k); }
  var root = document.getElementById('sextant-root');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return 'n/a';
    if (typeof v === 'number') {
      if (!isFinite(v)) return String(v);
      var a = Math.abs(v);
      // Whole numbers in full (a count of 9789089 us had read 9789090, as if exact: 2026-12-04
      // review); other values to 6 significant digits, in exponent form where the digits would
      // otherwise be padded with zeros that look exact.
      if (Number.isInteger(v) && a < 1e15) return String(v);
      if (a !== 0 && (a >= 1e7 || a < 1e-3)) return v.toExponential(3);
      var p = v.toPrecision(6);
      if (p.indexOf('e') >= 0) return p;
      return p.indexOf('.') >= 0 ? p.replace(/0+$/, '').replace(/\.$/, '') : p;
    }
    return String(v);
  }
  // A share below the whole (100 %, or 1 as a fraction) never reads as the whole: six significant
  // digits had made 99.99999% "100" and 0.9999999 "1" (2026-12-06 review). It is cut, not rounded,
  // to four decimals of a percentage, six of a fraction. One above 0 never reads 0 (fmt writes it
  // in exponent form).
  function fmtShare(v, whole) {
    var s = fmt(v);
    if (typeof v !== 'number' || !(v < whole) || Number(s) < whole) return s;
    var digits = whole === 1 ? 1e6 : 1e4, cut = Math.floor(v * digits) / digits;
    return cut < whole ? String(cut) : String((whole * digits - 1) / digits);
  }
  function fmtIn(v, unit) { return unit === '%' ? fmtShare(v, 100) : fmt(v); }
  // A value by the name of its scalar or column: fractions (mfu_fraction) as shares of 1.
  function fmtNamed(v, name) { return /(^|_)fraction$/.test(name) ? fmtShare(v, 1) : fmt(v); }
  function withUnit(v, unit) { return unit ? fmtIn(v, unit) + ' ' + unit : fmt(v); }
  // Value-axis ticks in SI form (1.5e11 FLOP/s reads 150G): ECharts writes them in full with
  // thousands separators, and twelve-digit ticks were cut at the chart's edge and ran into the
  // axis name (a calibrate report's FLOP/s axis, 2026-12-04 review).
  function tick(v) {
    var a = Math.abs(v);
    if (a < 1e4) return fmt(v);
    var pre = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
    for (var i = 0; i < pre.length; i++)
      if (a >= pre[i][0]) return String(+(v / pre[i][0]).toPrecision(4)) + pre[i][1];
    return fmt(v);
  }
  // Log axes too: their ticks had read "100,000" (2026-12-06 review).
  function siTicks(axis) {
    (Array.isArray(axis) ? axis : axis ? [axis] : []).forEach(function (ax) {
      if (!ax || (ax.type !== 'value' && ax.type !== 'log')) return;
      ax.axisLabel = Object.assign({}, ax.axisLabel || {});
      if (!ax.axisLabel.formatter) ax.axisLabel.formatter = tick;
    });
  }

  // ---- header ----
  var header = el('header');
  header.appendChild(el('h1', null, page.title));
  if (page.subtitle) header.appendChild(el('p', 'subtitle', page.subtitle));
  if (page.takeaways && page.takeaways.length) {
    var ul = el('ul', 'takeaways');
    page.takeaways.forEach(function (t) { ul.appendChild(el('li', null, t)); });
    header.appendChild(ul);
  }
  root.appendChild(header);

  // ---- charts ----
  var chartSection = el('section', 'charts');
  var pending = [];
  page.charts.forEach(function (c) {
    var fig = el('figure', c.wide ? 'chart wide' : 'chart');
    fig.setAttribute('data-chart-id', c.id);
    fig.appendChild(el('h2', null, c.title));
    if (c.takeaway) fig.appendChild(el('p', 'takeaway', c.takeaway));
    var box = el('div', 'chart-box');
    box.style.height = (c.height_px || 360) + 'px';
    fig.appendChild(box);
    chartSection.appendChild(fig);
    pending.push([c, box]);
  });
  root.appendChild(chartSection);

  function tooltip(c) {
    return function (params) {
      var list = Array.isArray(params) ? params : [params];
      var box = el('div', 'tip');
      if (!list.length) return box;
      var head = list[0].axisValueLabel !== undefined ? list[0].axisValueLabel : list[0].name;
      if (c.kind === 'gantt') head = list[0].name;
      if (head !== undefined && head !== null && head !== '') box.appendChild(el('div', 'tip-head', head));
      list.forEach(function (p) {
        var row = el('div', 'tip-row');
        var dot = el('span', 'tip-dot');
        if (typeof p.color === 'string') dot.style.background = p.color;
        row.appendChild(dot);
        var v = p.value, text;
        // A point may carry its own text (a scatter on a category axis: [value, lane index]); a
        // heatmap cell's value is [x index, y index, value]: only the value is shown (the indices
        // were printed with the unit before 2026-12-03: "8.56762, 2 s", "4, 0, 76.5 us").
        if (p.data && typeof p.data === 'object' && typeof p.data.tip === 'string') {
          text = p.data.tip;
        } else if (p.seriesType === 'heatmap' && Array.isArray(v)) {
          text = withUnit(v[2], c.value_unit);
        } else if (c.kind === 'gantt' && Array.isArray(v)) {
          text = 'start ' + withUnit(v[1], c.value_unit) + ', duration ' + withUnit(v[2] - v[1], c.value_unit);
        } else if (Array.isArray(v) && Array.isArray(c.value_labels)) {
          // The last entry labelled by its series where the chart says so (its unit: 2026-12-06 review).
          var labels = c.value_labels.slice();
          if (c.series_value_labels && has(c.series_value_labels, p.seriesName))
            labels[labels.length - 1] = c.series_value_labels[p.seriesName];
          text = v.slice(0, labels.length).map(function (x, i) {
            return labels[i] + ' ' + fmtIn(x, /\(%\)$/.test(labels[i]) ? '%' : '');
          }).join(', ');
        } else if (Array.isArray(v)) {
          text = v.map(function (x) { return fmtIn(x, c.value_unit); }).join(', ') + (c.value_unit ? ' ' + c.value_unit : '');
        } else {
          text = withUnit(v, c.value_unit);
        }
        row.appendChild(el('span', 'tip-name', p.seriesName));
        row.appendChild(el('span', 'tip-value', text));
        box.appendChild(row);
      });
      return box;
    };
  }
  // Gantt bars: value = [lane, start, end] or [lane, start, end, row, rows]: the bar takes row
  // `row` of `rows` equal rows of its lane (streams of one rank); one custom series per activity kind.
  function ganttItem(params, api) {
    var lane = api.value(0);
    var start = api.coord([api.value(1), lane]);
    var end = api.coord([api.value(2), lane]);
    var band = api.size([0, 1])[1] * 0.8;
    var rows = api.value(4) > 1 ? api.value(4) : 1;
    var row = rows > 1 ? api.value(3) : 0;
    var h = rows > 1 ? band / rows * 0.9 : band * 0.875;
    var y = start[1] - band / 2 + (rows > 1 ? row * band / rows : band * 0.0625);
    var rect = echarts.graphic.clipRectByRect(
      { x: start[0], y: y, width: Math.max(end[0] - start[0], 0.5), height: h },
      { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
    return rect && { type: 'rect', transition: [], shape: rect, style: api.style() };
  }

  if (typeof echarts === 'undefined') {
    root.insertBefore(el('p', 'error', 'charting library missing from this report'), chartSection);
  } else {
    var instances = [];
    pending.forEach(function (pc) {
      var c = pc[0], box = pc[1];
      var inst = echarts.init(box, null, { renderer: 'svg' });
      var opt = c.option;
      opt.tooltip = Object.assign({}, opt.tooltip || {}, { formatter: tooltip(c) });
      siTicks(opt.xAxis);
      siTicks(opt.yAxis);
      if (c.kind === 'gantt') {
        (opt.series || []).forEach(function (s) { if (s.type === 'custom') s.renderItem = ganttItem; });
      }
      // One chart's failure (an option the library cannot draw) is said in its box and leaves the
      // other charts, the figures and the tables in place: a reference line at a null value had
      // stopped the page script and blanked everything after it (2026-12-03 review).
      try {
        inst.setOption(opt);
        instances.push(inst);
      } catch (e) {
        inst.dispose();
        box.textContent = 'this chart could not be drawn: ' + e;
        box.className += ' error';
      }
    });
    window.addEventListener('resize', function () { instances.forEach(function (i) { i.resize(); }); });
  }

  // ---- scalars ----
  var scal = el('section', 'scalars');
  scal.appendChild(el('h2', null, 'Figures'));
  var st = el('table', 'data');
  var sb = el('tbody');
  Object.keys(result.scalars).forEach(function (k) {
    var tr = el('tr');
    tr.appendChild(el('th', null, k));
    // Text scalars left-aligned and wrapped (a long node_power_source had pushed the table off the
    // page as a right-aligned cell that does not wrap; review of 2026-12-06).
    var text = typeof result.scalars[k] === 'string' && !has(exact.scalars, k);
    tr.appendChild(el('td', text ? 'text' : 'num', has(exact.scalars, k) ? exact.scalars[k] : fmtNamed(result.scalars[k], k)));
    sb.appendChild(tr);
  });
  st.appendChild(sb);
  scal.appendChild(st);
  root.appendChild(scal);

  if (result.notes && result.notes.length) {
    var ns = el('section', 'notes');
    ns.appendChild(el('h2', null, 'Notes'));
    var nl = el('ul');
    result.notes.forEach(function (n) { nl.appendChild(el('li', null, n)); });
    ns.appendChild(nl);
    root.appendChild(ns);
  }

  // ---- tables: sortable (click a header), filterable ----
  Object.keys(result.tables).forEach(function (name) {
    var t = result.tables[name];
    var cols = Object.keys(t.columns);
    var big = has(exact.tables, name) ? exact.tables[name] : {};
    // The text a cell shows: an integer's exact digits where the page carries them.
    function shown(c, i) { return has(big[c], i) ? big[c][i] : fmtNamed(t.columns[c][i], c); }
    var n = cols.length ? t.columns[cols[0]].length : 0;
    var sec = el('section', 'table');
    sec.setAttribute('data-table', name);
    sec.appendChild(el('h2', null, name));
    if (t.description) sec.appendChild(el('p', 'description', t.description));
    var filter = el('input', 'filter');
    filter.type = 'search';
    filter.placeholder = 'filter rows';
    var info = el('p', 'rows-info');
    var table = el('table', 'data');
    var thead = el('thead'), tbody = el('tbody');
    var sortCol = null, sortDir = 1;
    var hr = el('tr');
    cols.forEach(function (c) {
      var th = el('th', t.types[c] === 'str' ? 'str' : 'num', c);
      th.title = 'sort by ' + c;
      th.addEventListener('click', function () {
        sortDir = sortCol === c ? -sortDir : 1;
        sortCol = c;
        Array.prototype.forEach.call(hr.children, function (x) { x.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
        draw();
      });
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    table.appendChild(thead);
    table.appendChild(tbody);
    // The filter matches the text a cell shows (7.516e-4, n/a) and a number's stored digits
    // (0.0007516): before 2026-12-06 (review) it matched the stored value only, so a row could not
    // be found by what the table showed.
    function matches(c, i, q) {
      var v = t.columns[c][i];
      return shown(c, i).toLowerCase().indexOf(q) >= 0 ||
        (typeof v === 'number' && !has(big[c], i) && String(v).toLowerCase().indexOf(q) >= 0);
    }
    // Integers equal as doubles are ordered by their exact digits (9007199254740993 after ...992).
    function exactOrder(c, a, b) {
      if (typeof BigInt !== 'function' || (!has(big[c], a) && !has(big[c], b))) return 0;
      var x = BigInt(has(big[c], a) ? big[c][a] : String(t.columns[c][a]));
      var y = BigInt(has(big[c], b) ? big[c][b] : String(t.columns[c][b]));
      return x < y ? -1 : x > y ? 1 : 0;
    }
    function draw() {
      var q = filter.value.toLowerCase();
      var idx = [];
      for (var i = 0; i < n; i++) {
        if (q) {
          var hit = false;
          for (var j = 0; j < cols.length && !hit; j++) hit = matches(cols[j], i, q);
          if (!hit) continue;
        }
        idx.push(i);
      }
      if (sortCol !== null) {
        var v = t.columns[sortCol], numeric = t.types[sortCol] !== 'str';
        idx.sort(function (a, b) {
          var x = v[a], y = v[b];
          if (numeric) {
            x = x === null ? -Infinity : x; y = y === null ? -Infinity : y;
            return ((x - y) || (x === y ? exactOrder(sortCol, a, b) : 0)) * sortDir || a - b;
          }
          return (x < y ? -1 : x > y ? 1 : 0) * sortDir || a - b;
        });
      }
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      idx.slice(0, MAX_ROWS).forEach(function (i) {
        var tr = el('tr');
        cols.forEach(function (c) { tr.appendChild(el('td', t.types[c] === 'str' ? 'str' : 'num', shown(c, i))); });
        tbody.appendChild(tr);
      });
      var total = t.rows_total ? ' (of ' + t.rows_total + ' in the result; this page holds the first ' + n + ')' : '';
      info.textContent = (idx.length > MAX_ROWS
        ? 'showing ' + MAX_ROWS + ' of ' + idx.length + ' rows (all rows are in --json and --csv output)'
        : idx.length + ' rows') + total;
    }
    filter.addEventListener('input', draw);
    draw();
    sec.appendChild(filter);
    sec.appendChild(info);
    var wrap = el('div', 'table-wrap');
    wrap.appendChild(table);
    sec.appendChild(wrap);
    root.appendChild(sec);
  });
  document.body.setAttribute('data-rendered', 'true');
})();
)JS";

const char* const kPageStyle = R"CSS(
:root { --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --accent: #2f5fb3; --bg: #ffffff; --band: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 "DejaVu Sans", system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 4px; }
.subtitle { color: var(--muted); margin: 0 0 12px; }
.takeaways { background: var(--band); border-left: 4px solid var(--accent); padding: 10px 10px 10px 28px; margin: 8px 0 20px; }
.takeaways li { margin: 2px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 20px; align-items: start; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 12px; }
figure.chart.wide { grid-column: 1 / -1; }
.takeaway { color: var(--muted); margin: 0 0 8px; }
.chart-box { width: 100%; }
section.scalars, section.table, section.notes { margin-top: 28px; }
.table-wrap { overflow-x: auto; max-height: 520px; overflow-y: auto; border: 1px solid var(--line); }
table.data { border-collapse: collapse; font-size: 13px; }
table.data th, table.data td { padding: 3px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
.scalars table.data td.text { text-align: left; white-space: normal; overflow-wrap: anywhere; min-width: 16em; max-width: 48em; }
table.data thead th { position: sticky; top: 0; background: var(--band); cursor: pointer; text-align: left; }
table.data thead th[aria-sort=ascending]::after { content: " \25B2"; }
table.data thead th[aria-sort=descending]::after { content: " \25BC"; }
.scalars th { text-align: left; font-weight: normal; color: var(--muted); }
.description, .rows-info { color: var(--muted); margin: 2px 0 6px; }
input.filter { margin: 4px 0; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; }
.error { color: #b00020; font-weight: bold; }
.tip-head { font-weight: bold; margin-bottom: 2px; max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
.tip-row { display: flex; gap: 6px; align-items: center; }
.tip-dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; background: #888; }
.tip-value { margin-left: auto; padding-left: 12px; font-variant-numeric: tabular-nums; }
footer { color: var(--muted); margin-top: 32px; font-size: 12px; }
)CSS";

}  // namespace sextant::report
