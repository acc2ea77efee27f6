"""What the experiment's reports per replica count (report.py, capacity_report.py) share: their command line, the
scaling efficiency, their CSV files, and their charts' replica axis with the linear-scaling reference."""
import argparse
import csv


def arguments(doc, title):
    """OUT_DIR [--title TEXT] [--no-chart], the usage being the report's docstring."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--title", default=title)
    p.add_argument("--no-chart", action="store_true")
    return p.parse_args()


def add_efficiency(rows, key):
    """Sets each row's efficiency = key(N) x N0 / (N x key(N0)), N0 the first row with a value (the rows are by
    replicas, so the smallest count); None where the row or every row lacks one."""
    base = next((r for r in rows if r.get(key)), None)
    for r in rows:
        value = r.get(key)
        if base is None or not value:
            r["efficiency"] = None
            continue
        n, n0 = int(r["replicas"]), int(base["replicas"])
        r["efficiency"] = round(value * n0 / (n * base[key]), 3)


def write_csv(rows, columns, path):
    """The rows' columns, an empty cell for a missing value."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else r[k] for k in columns})


def replicas_axis(ax, n, values, ylabel):
    """Replica counts `n` along x, `ylabel` from 0 up, and what `values` at those counts would be if they grew in
    proportion from the first one (nothing of it without counts)."""
    if n:
        ax.plot(n, [values[0] * k / n[0] for k in n], "--", color="tab:gray", label="linear scaling")
        ax.set_xticks(n)
    ax.set_xlabel("replicas")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


def save_chart(fig, ax, title, path):
    """Titles the chart, lays it out, writes it and frees it."""
    import matplotlib.pyplot as plt  # imported here: the tables need no plotting library
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
