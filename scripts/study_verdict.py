"""The verdict of a `headscan measure --json` report in a study table's cell: `usable`, or
`NOT usable: ` and the checks that failed, named without their values ("focal length",
"marker-corner RMS", "CVAI interval"). Imported by the study scripts' table printers."""
import re


def verdict_cell(report):
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
