/** Text made safe for HTML element content and quoted attribute values (the report pages and their SVG). */
export function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A report page's head: its title and the style every report shares, then the page's own `css` lines. */
export function htmlHead(title: string, css: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1f24;max-width:1100px}
h1{font-size:1.5em}table{border-collapse:collapse;width:100%;margin:1em 0}td,th{border:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}.verdict{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600}
${css}
</style></head>`;
}
