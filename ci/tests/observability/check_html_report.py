"""Checks that a per-minute report's per-minute.html is self-contained and shows what its per-minute.md shows.

Usage: check_html_report.py REPORT_DIR [HTML]   (HTML: REPORT_DIR/per-minute.html unless given)
Self-contained: every <img> src a data:image/png;base64 URI holding a PNG with a non-zero IHDR size, one <img> per
*.png of REPORT_DIR with its bytes, no src/href but '#anchors' and data: URIs, no script, frame or stylesheet link,
no url() in CSS. Same content: the headings of per-minute.md in order, and under each the same data rows, cell
by cell. Prints what is wrong; exit status 1 if anything is. Standard library only.
"""
import base64
import binascii
import glob
import os
import struct
import sys
from html.parser import HTMLParser

PNG_URI = "data:image/png;base64,"
URL_ATTRS = {"src", "href", "srcset", "action", "formaction", "poster", "data", "background", "xlink:href"}
FOREIGN_TAGS = {"script", "link", "iframe", "frame", "object", "embed", "base", "audio", "video", "source"}


def short(value, n=60):
    return value if len(value) <= n else value[:n] + "..."


class Page(HTMLParser):
    """Headings with the data rows of the tables under each, the images, and what makes the page not self-contained."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []   # (heading, [row tuples])
        self.images = []     # (alt, src)
        self.problems = []
        self._text = None    # text of the h2 or td being read
        self._row = None     # cells of the tr being read
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        if tag in FOREIGN_TAGS:
            self.problems.append(f"<{tag}> in the page")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>: an event handler (script)")
            elif name in URL_ATTRS and not value.startswith(("#", "data:")):
                self.problems.append(f'<{tag} {name}="{short(value)}">: external {name}, not an #anchor or data: URI')
            elif name == "style" and "url(" in value:
                self.problems.append(f"<{tag} style>: url() in inline CSS")
        if tag == "img":
            a = dict(attrs)
            self.images.append((a.get("alt") or "", a.get("src") or ""))
        elif tag == "style":
            self._in_style = True
        elif tag == "h2":
            self._text = []
        elif tag == "tr":
            self._row = []
        elif tag == "td" and self._row is not None:
            self._text = []

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False
        elif tag == "h2" and self._text is not None:
            self.sections.append(("".join(self._text).strip(), []))
            self._text = None
        elif tag == "td" and self._text is not None:
            self._row.append("".join(self._text).strip())
            self._text = None
        elif tag == "tr" and self._row is not None:
            if self._row and self.sections:  # a row of <th> only is the table's header
                self.sections[-1][1].append(tuple(self._row))
            self._row = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if self._in_style and ("url(" in data or "@import" in data):
            self.problems.append("<style> loads something (url() or @import)")


def markdown_sections(path):
    """Headings (## ...) of per-minute.md, each with the data rows of its table (no header or alignment row)."""
    sections = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("## "):
                sections.append((line[3:], []))
            elif line.startswith("|") and sections:
                cells = tuple(c.strip() for c in line[1:-1].split("|"))
                if not all(c and set(c) <= set("-:") for c in cells):
                    sections[-1][1].append(cells)
    return [(title, rows[1:]) for title, rows in sections]


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    return struct.unpack(">II", data[16:24])


def check_images(page, report):
    problems, decoded = [], []
    for alt, src in page.images:
        if not src.startswith(PNG_URI):
            problems.append(f'<img alt="{alt}" src="{short(src)}">: not a {PNG_URI} URI')
            continue
        try:
            data = base64.b64decode(src[len(PNG_URI):], validate=True)
        except binascii.Error as e:
            problems.append(f'<img alt="{alt}">: bad base64 ({e})')
            continue
        size = png_size(data)
        if not size or 0 in size:
            problems.append(f'<img alt="{alt}">: not a PNG with a width and height (IHDR {size})')
        decoded.append(data)
    files = []
    for p in sorted(glob.glob(os.path.join(report, "*.png"))):
        with open(p, "rb") as f:
            files.append(f.read())
    if len(page.images) != len(files):
        problems.append(f"{len(page.images)} <img> for {len(files)} PNG file(s) beside the page")
    elif sorted(decoded) != sorted(files):
        problems.append("the inlined images are not the bytes of the PNG files beside the page")
    return problems


def check_rows(page, md_path):
    want = markdown_sections(md_path)
    got = page.sections
    problems = []
    if [t for t, _ in got] != [t for t, _ in want]:
        return [f"headings {[t for t, _ in got]}, per-minute.md has {[t for t, _ in want]}"]
    for (title, rows), (_, md_rows) in zip(got, want):
        if len(rows) != len(md_rows):
            problems.append(f"{title}: {len(rows)} rows, per-minute.md has {len(md_rows)}")
            continue
        for i, (row, md_row) in enumerate(zip(rows, md_rows)):
            if row != md_row:
                problems.append(f"{title}, row {i + 1}: {row}, per-minute.md has {md_row}")
                break
    if not any(rows for _, rows in want):
        problems.append("per-minute.md has no table row at all")
    return problems


def main():
    report = sys.argv[1]
    html_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(report, "per-minute.html")
    page = Page()
    with open(html_path, encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    problems = page.problems + check_images(page, report) + check_rows(page, os.path.join(report, "per-minute.md"))
    rows = sum(len(r) for _, r in page.sections)
    print(f"checked {html_path}: {len(page.images)} inlined image(s), {len(page.sections)} section(s), {rows} row(s)")
    for p in problems:
        print(f"  {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
