"""Helpers of the study scripts' table printers (scale-study.sh, conditions-study.sh)."""
import re


def option(options, name):
    """The number given to `--NAME` (`--NAME=X` or `--NAME X`) in a scan's simulate options, else 0."""
    m = re.search(rf"--{name}[= ](\S+)", options)
    return float(m.group(1)) if m else 0.0


def verdict_cell(report):
    """The verdict of a `headscan measure --json` report in a table cell: `usable`, or
    `NOT usable: ` and the checks that failed, named without their values ("focal length",
    "marker-corner RMS", "CVAI interval")."""
    verdict = (report or {}).get("verdict") or {}
    if verdict.get("usable", False):
        return "usable"

    def name(reason):
        kept = []
        for word in re.sub(r" 95 % interval", " interval", reason).split():
            if word[0].isdigit() or word[0] in "±(":
                break
            kept.append(word)
        return " ".join(kept)

    return "NOT usable: " + ", ".join(name(r) for r in verdict.get("reasons", []))
