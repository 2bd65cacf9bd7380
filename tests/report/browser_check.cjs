// Loads each report in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// with the network off, and prints one JSON line per report: console errors, page errors, dialogs,
// requests that left file://, and for each chart how many graphic elements its series drew.
// Usage: node browser_check.cjs LIST.json SCREENSHOT_DIR   (LIST: [{kind, path}])
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const EVIL = '<img src=x onerror=alert(1)>';

async function main() {
  const [list, shots] = process.argv.slice(2);
  const items = JSON.parse(fs.readFileSync(list, 'utf8'));
  fs.mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // A root session in a container has no user namespace sandbox and a small /dev/shm.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--headless=new'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const results = [];
  for (const item of items) {
    const page = await context.newPage();
    const r = { kind: item.kind, console_errors: [], page_errors: [], dialogs: [], remote_requests: [], charts: [] };
    page.on('console', (m) => { if (m.type() === 'error') r.console_errors.push(m.text()); });
    page.on('pageerror', (e) => r.page_errors.push(String(e)));
    page.on('dialog', async (d) => { r.dialogs.push(d.message()); await d.dismiss(); });
    page.on('request', (q) => { if (!q.url().startsWith('file:') && !q.url().startsWith('data:')) r.remote_requests.push(q.url()); });
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(item.path), { waitUntil: 'load' });
    try {
      await page.waitForSelector('body[data-rendered="true"]', { timeout: 20000 });
      r.rendered = true;
    } catch (e) {
      r.rendered = false;
    }
    r.render_ms = Date.now() - t0;
    r.charts = await page.evaluate(() => {
      const out = [];
      document.querySelectorAll('figure.chart').forEach((fig) => {
        const box = fig.querySelector('.chart-box');
        const inst = window.echarts && window.echarts.getInstanceByDom(box);
        const svg = box.querySelector('svg');
        const rect = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
        let drawn = 0, points = 0, series = 0;
        if (inst) {
          inst.getModel().eachSeries((s) => {
            series += 1;
            points += s.getData().count();
            const view = inst.getViewOfSeriesModel(s);
            if (view && view.group) view.group.traverse((el) => { if (!el.isGroup && !el.ignore && !el.invisible) drawn += 1; });
          });
        }
        // Each reference line (markLine {xAxis: v} / {yAxis: v}) against the grid it is drawn in:
        // a value beyond the axis has no pixel inside the grid and is not drawn.
        const lines = [];
        if (inst) {
          const rect = inst.getModel().getComponent('grid', 0) && inst.getModel().getComponent('grid', 0).coordinateSystem.getRect();
          (inst.getOption().series || []).forEach((s) => {
            ((s.markLine && s.markLine.data) || []).forEach((m) => {
              ['xAxis', 'yAxis'].forEach((a) => {
                if (typeof m[a] !== 'number' || !rect) return;
                const px = inst.convertToPixel(a === 'xAxis' ? { xAxisIndex: 0 } : { yAxisIndex: 0 }, m[a]);
                const inside = a === 'xAxis' ? px >= rect.x - 0.5 && px <= rect.x + rect.width + 0.5
                                             : px >= rect.y - 0.5 && px <= rect.y + rect.height + 0.5;
                lines.push({ axis: a, value: m[a], inside });
              });
            });
          });
        }
        // Numbers drawn with thousands separators: an axis whose ticks skipped the SI form.
        const grouped = svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent).filter((t) => /^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) : [];
        out.push({
          lines, grouped,
          id: fig.getAttribute('data-chart-id'),
          title: fig.querySelector('h2').textContent,
          takeaway: (fig.querySelector('.takeaway') || { textContent: '' }).textContent,
          svg_width: rect.width, svg_height: rect.height,
          svg_shapes: svg ? svg.querySelectorAll('path,rect,circle,polyline,polygon').length : 0,
          series, points, drawn,
        });
      });
      return out;
    });
    // Sorting: click the last numeric header of the first data table twice (descending) and read
    // the first column of the first row against the maximum.
    r.sort = await page.evaluate(() => {
      const sec = document.querySelector('section.table');
      if (!sec) return null;
      const ths = [...sec.querySelectorAll('thead th.num')];
      if (!ths.length) return null;
      const th = ths[ths.length - 1];
      const col = [...th.parentNode.children].indexOf(th);
      th.click(); th.click();
      const vals = [...sec.querySelectorAll('tbody tr')].map((tr) => Number(tr.children[col].textContent));
      return { column: th.textContent, sorted_desc: vals.every((v, i) => i === 0 || !(v > vals[i - 1])), rows: vals.length };
    });
    // Filtering: each table's first cell shown in exponent form or as n/a, typed into its filter,
    // must find its row (the filter had matched the stored value only: 2026-12-06 review).
    r.filter = await page.evaluate(() => {
      const out = [];
      document.querySelectorAll('section.table').forEach((sec) => {
        const td = [...sec.querySelectorAll('tbody td')].find((c) => /e[-+]\d|^n\/a$/.test(c.textContent));
        if (!td) return;
        const input = sec.querySelector('input.filter');
        input.value = td.textContent;
        input.dispatchEvent(new Event('input'));
        out.push({ table: sec.getAttribute('data-table'), text: td.textContent, rows: sec.querySelectorAll('tbody tr').length });
        input.value = '';
        input.dispatchEvent(new Event('input'));
      });
      return out;
    });
    // The Figures table: its right edge against the page's width, and how each text scalar's cell is
    // laid out (long texts such as node_power_source had pushed the table off-screen as right-aligned
    // cells that do not wrap: 2026-12-06 review).
    r.figures = await page.evaluate(() => {
      const table = document.querySelector('section.scalars table');
      if (!table) return null;
      const scalars = JSON.parse(document.getElementById('sextant-data').textContent).result.scalars;
      const text_cells = [];
      table.querySelectorAll('tr').forEach((tr) => {
        const td = tr.children[1];
        if (!td || typeof scalars[tr.children[0].textContent] !== 'string') return;
        const cs = getComputedStyle(td);
        text_cells.push({ key: tr.children[0].textContent, length: td.textContent.length, align: cs.textAlign, white_space: cs.whiteSpace });
      });
      return { right: table.getBoundingClientRect().right, page_width: document.documentElement.clientWidth, text_cells };
    });
    if (item.kind === 'infer-serve') {
      // The tooltip of every series of the serve charts that draw values of different units: each
      // value is labelled with its unit (they had read "value 1.68": 2026-12-06 review).
      r.tips = {};
      for (const id of ['throughput-vs-load', 'kv-timeline']) {
        const n = await page.evaluate((id) => {
          const inst = window.echarts.getInstanceByDom(document.querySelector('figure[data-chart-id="' + id + '"] .chart-box'));
          return inst ? inst.getModel().getSeriesCount() : 0;
        }, id);
        r.tips[id] = [];
        for (let s = 0; s < n; s++) {
          await page.evaluate(([id, s]) => {
            const inst = window.echarts.getInstanceByDom(document.querySelector('figure[data-chart-id="' + id + '"] .chart-box'));
            inst.dispatchAction({ type: 'showTip', seriesIndex: s, dataIndex: 0 });
          }, [id, s]);
          await page.waitForTimeout(150);
          r.tips[id].push(...await page.evaluate((id) => [...document.querySelectorAll('figure[data-chart-id="' + id + '"] .tip-row')].map((row) =>
            ({ series: row.querySelector('.tip-name').textContent, value: row.querySelector('.tip-value').textContent })), id));
        }
      }
    }
    if (item.kind === 'xss') {
      // Show the tooltip of every bar of the top-kernels chart: kernel names reach the tooltip too.
      await page.evaluate(() => {
        const box = document.querySelector('figure[data-chart-id="top-kernels"] .chart-box');
        const inst = window.echarts.getInstanceByDom(box);
        const n = inst.getModel().getSeriesByIndex(0).getData().count();
        for (let i = 0; i < n; i++) inst.dispatchAction({ type: 'showTip', seriesIndex: 0, dataIndex: i });
      });
      await page.waitForTimeout(300);
      r.xss = await page.evaluate((evil) => ({
        img_elements: document.querySelectorAll('img').length,
        cell_as_text: [...document.querySelectorAll('td')].some((td) => td.textContent === evil),
        svg_text: [...document.querySelectorAll('svg text, svg tspan')].some((t) => t.textContent.includes('onerror')),
        onerror_attributes: document.querySelectorAll('[onerror]').length,
      }), EVIL);
    }
    if (item.kind === 'numbers') {
      // The seed in the figures and the table, the table sorted by it (ascending), and the tooltip of
      // the share chart's first bar (99.99999%).
      r.numbers = await page.evaluate(() => {
        const figure = [...document.querySelectorAll('section.scalars tr')].find((tr) => tr.children[0].textContent === 'seed');
        const sec = document.querySelector('section.table[data-table="draws"]');
        const th = [...sec.querySelectorAll('thead th')];
        const seedCol = th.findIndex((x) => x.textContent === 'seed');
        th[seedCol].click();
        const seeds = [...sec.querySelectorAll('tbody tr')].map((tr) => tr.children[seedCol].textContent);
        const fracCol = th.findIndex((x) => x.textContent === 'met_fraction');
        const fractions = [...sec.querySelectorAll('tbody tr')].map((tr) => tr.children[fracCol].textContent);
        const met = [...document.querySelectorAll('section.scalars tr')].find((tr) => tr.children[0].textContent === 'met_fraction');
        const inst = window.echarts.getInstanceByDom(document.querySelector('figure[data-chart-id="table-draws-0"] .chart-box'));
        inst.dispatchAction({ type: 'showTip', seriesIndex: 0, dataIndex: 0 });
        return { figure: figure && figure.children[1].textContent, met: met && met.children[1].textContent, seeds, fractions };
      });
      await page.waitForTimeout(300);
      r.numbers.tip = await page.evaluate(() => [...document.querySelectorAll('.tip-value')].map((x) => x.textContent));
    }
    const shot = path.join(shots, item.kind + '.png');
    await page.screenshot({ path: shot, fullPage: false });
    r.screenshot = shot;
    r.screenshot_bytes = fs.statSync(shot).size;
    results.push(r);
    await page.close();
  }
  await browser.close();
  process.stdout.write(JSON.stringify(results) + '\n');
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
