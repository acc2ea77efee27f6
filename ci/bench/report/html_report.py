"""The per-minute report as one HTML file a browser opens from disk with nothing else: the header facts and
tables of tables.py, the PNG charts inlined as data: URIs, inline CSS, no script and no link leaving the page.
"""
import base64
import os
from html import escape

from tables import NO_DATA, TITLE

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
nav a { margin-right: 1em; }
img { display: block; max-width: 100%; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; white-space: nowrap; text-align: left; }
th { background: #eee; }
tbody tr:nth-child(even) { background: #f6f6f6; }
.n { text-align: right; font-variant-numeric: tabular-nums; }
"""


def _cell(tag, value, number):
    attr = ' class="n"' if number else ""
    return f"<{tag}{attr}>{escape(value)}</{tag}>"


def _table(t):
    out = [f'<h2 id="{escape(t.anchor)}">{escape(t.title)}</h2>']
    if t.note:
        out.append(f"<p><em>{escape(t.note)}.</em></p>")
    if not t.rows:
        out.append(f"<p>{escape(NO_DATA)}</p>")
        return out
    out.append("<table>\n<thead><tr>" + "".join(_cell("th", c, i >= t.first_number) for i, c in enumerate(t.columns))
               + "</tr></thead>\n<tbody>")
    # one line per row keeps the file readable as text
    out.extend("<tr>" + "".join(_cell("td", c, i >= t.first_number) for i, c in enumerate(row)) + "</tr>"
               for row in t.rows)
    out.append("</tbody>\n</table>")
    return out


def _chart(out_dir, name):
    with open(os.path.join(out_dir, name), "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(name)}" title="{escape(name)}">'


def write(path, out_dir, header, chart_names, shown):
    """Writes the page to `path`; the charts are read from `out_dir`."""
    links = ([("charts", "Charts")] if chart_names else []) + [(t.anchor, t.title) for t in shown]
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(TITLE)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
           f"<h1>{escape(TITLE)}</h1>", "<ul>", *(f"<li>{escape(fact)}</li>" for fact in header), "</ul>",
           "<nav>" + "".join(f'<a href="#{escape(a)}">{escape(title)}</a>' for a, title in links) + "</nav>"]
    if chart_names:
        out.append('<h2 id="charts">Charts</h2>')
        out.extend(_chart(out_dir, name) for name in chart_names)
    for t in shown:
        out.extend(_table(t))
    out.append("</body>\n</html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
