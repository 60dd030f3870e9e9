#!/usr/bin/env python3
"""The explorer page in a real browser (ctest: explorer_browser, label cpu).

Starts `tilegemm serve --port 0`, opens each panel in headless chromium (fresh profile, no network
but loopback) in a state set by URL parameters, and checks what the page drew after its scripts
ran (--dump-dom) against the CLI's own JSON (`tilegemm map --json`, `tilegemm explain --json`) and
the fixture traces (any Chrome trace, and one written by `tilegemm trace`, also served with
`tilegemm serve --trace`): the stage-local view and the CTA dataflow replay, whose steps and stage-ring
states are recomputed here from the JSON; the plan panel with explain's call options; recording on
the spot (without a Hopper GPU: the server's 503 shown on the page). Saves one screenshot per panel
under --out. Exit 77 (ctest: skipped) when no chromium is installed; 1 with the list of failed checks
otherwise.
"""
import argparse
import base64
import html.parser
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


# --------------------------------------------------------------------------------- the DOM dump
class Element:
    def __init__(self, tag, attrs, section):
        self.tag, self.attrs, self.text = tag, dict(attrs), ""
        self.section = section  # id of the enclosing <section> (the panel), or None

    def classes(self):
        return (self.attrs.get("class") or "").split()


class Dom(html.parser.HTMLParser):
    """Every element of the dumped document with its attributes and text content."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.stack = [], []
        self.feed(text)

    def _section(self):
        return next((s.attrs.get("id") for s in reversed(self.stack) if s.tag == "section"), None)

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self._section())
        self.elements.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.elements.append(Element(tag, attrs, self._section()))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for e in self.stack:
            e.text += data

    def find(self, tag=None, cls=None, within=None, **attrs):
        """Elements by tag, class, panel (section id) and attributes (data_key= is data-key)."""
        out = []
        for e in self.elements:
            if within and e.section != within:
                continue
            if tag and e.tag != tag:
                continue
            if cls and cls not in e.classes():
                continue
            if any(e.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(e)
        return out

    def one(self, tag=None, cls=None, within=None, **attrs):
        found = self.find(tag, cls, within, **attrs)
        return found[0] if len(found) == 1 else None


# ----------------------------------------------------------------------------- server, browser
def start_server(tilegemm, *extra):
    proc = subprocess.Popen([tilegemm, "serve", "--port", "0", "--quiet", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # The first line is "tilegemm serve: http://127.0.0.1:PORT/ (Ctrl-C to stop)"; never wait forever.
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    if "http://" not in line:
        proc.kill()
        sys.exit(f"tilegemm serve did not print its address: {line!r} {proc.stderr.read()!r}")
    base = line.split("http://", 1)[1].split("/", 1)[0]
    return proc, f"http://{base}"


def get_json(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def cli_json(tilegemm, *args):
    out = subprocess.run([tilegemm, *args, "--json"], check=True, capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout)


class Browser:
    def __init__(self, exe, workdir):
        self.exe, self.workdir, self.runs = exe, workdir, 0

    def _run(self, url, extra, height):
        self.runs += 1
        profile = os.path.join(self.workdir, f"profile-{self.runs}")  # fresh profile every run
        cmd = [self.exe, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
               "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
               "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
               "--metrics-recording-only", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
               "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
               # No network: every host name but the loopback address fails to resolve.
               "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
               # Let the page's fetches and scripts finish before the dump / screenshot.
               "--virtual-time-budget=20000", f"--window-size=1400,{height}", *extra, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180)

    def dom(self, url):
        r = self._run(url, ["--dump-dom"], 2000)
        # The page must run without script errors and without Content-Security-Policy refusals.
        bad = [l for l in r.stderr.splitlines()
               if "CONSOLE" in l and any(w in l for w in ("Uncaught", "Refused", "Content Security Policy"))]
        check(not bad, f"no script error or CSP refusal in the console ({url[:80]}): {bad[:2]}")
        return Dom(r.stdout)

    def screenshot(self, url, path, height):
        if os.path.exists(path):
            os.remove(path)
        self._run(url, [f"--screenshot={path}"], height)
        ok = os.path.exists(path)
        if ok:
            with open(path, "rb") as f:
                ok = f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10000
        check(ok, f"screenshot {path}")


# ------------------------------------------------------------------------------------ the panels
def state_of(dom, panel):
    s = dom.one("section", id=panel)
    return s.attrs.get("data-state") if s else None


def test_map(tg, br, base, out, name, cli_args, params, wave):
    print(f"map panel: {name}")
    cli = cli_json(tg, "map", *cli_args)
    status, api = get_json(f"{base}/api/map?" + "&".join(f"{k}={v}" for k, v in params.items()))
    check(status == 200 and api == cli, "/api/map returns the same JSON as `tilegemm map --json`")
    query = "&".join([f"panel=map"] + [f"map.{k}={v}" for k, v in params.items()] + [f"map.wave={wave}"])
    url = f"{base}/?{query}"
    dom = br.dom(url)
    check(state_of(dom, "map") == "ready", f"map panel ready (state {state_of(dom, 'map')})")
    grid = dom.one("svg", cls="map-grid")
    tiles = dom.find("rect", cls="tile")
    n_tiles = cli["grid"]["num_tiles"]
    check(grid is not None and grid.attrs.get("data-tiles") == str(n_tiles), f"grid says {n_tiles} tiles")
    check(len(tiles) == n_tiles, f"{n_tiles} tile elements drawn (found {len(tiles)})")
    w = cli["waves"][wave]
    cur = [t for t in tiles if "cur" in t.classes()]
    check(len(cur) == w["tiles"], f"wave {wave}: {w['tiles']} tiles highlighted (found {len(cur)})")
    want = sorted((t["cta"], t["m_block"], t["n_block"]) for t in cli["tiles"] if t["wave"] == wave)
    drawn = sorted((int(t.attrs["data-cta"]), int(t.attrs["data-m"]), int(t.attrs["data-n"])) for t in cur)
    check(drawn == want, f"wave {wave}: the same CTA -> tile pairs as the CLI")
    ws = dom.one("td", data_key="working_set_bytes")
    check(ws is not None and ws.attrs.get("data-value") == str(w["working_set_bytes"]),
          f"wave {wave}: working set {w['working_set_bytes']} B, as `tilegemm map --json` prints")
    for key in ("a_sharer_gap", "b_sharer_gap"):
        cell = dom.one("td", data_key=key)
        check(cell is not None and abs(float(cell.attrs.get("data-value", "nan")) - w[key]) < 1e-9,
              f"wave {wave}: {key} {w[key]}, as `tilegemm map --json` prints")
    a_on = [e for e in dom.find("rect", cls="a-band") if "on" in e.classes()]
    b_on = [e for e in dom.find("rect", cls="b-band") if "on" in e.classes()]
    check(len(a_on) == w["unique_a_bands"] and len(b_on) == w["unique_b_bands"],
          f"wave {wave}: {w['unique_a_bands']} A bands and {w['unique_b_bands']} B bands highlighted "
          f"(found {len(a_on)}, {len(b_on)})")
    label = dom.one("span", within="map", data_role="wave-label")
    check(label is not None and label.attrs.get("data-wave") == str(wave), f"the stepper shows wave {wave}")
    br.screenshot(url, os.path.join(out, f"explorer-map-{name}.png"), 1500)
    return cli


def test_plan(tg, br, base, out):
    print("plan panel")
    cli = cli_json(tg, "explain", "4096", "7168", "2048", "--device", "h200")
    status, api = get_json(f"{base}/api/plan?m=4096&n=7168&k=2048&device=h200")
    note_cli, note_api = cli["device"].pop("note"), api["device"].pop("note")
    check(status == 200 and api == cli, "/api/plan returns the JSON of `tilegemm explain --json` "
          f"(all but device.note: {note_api!r} vs {note_cli!r})")
    url = f"{base}/?panel=plan&plan.m=4096&plan.n=7168&plan.k=2048&plan.device=h200"
    dom = br.dom(url)
    check(state_of(dom, "plan") == "ready", f"plan panel ready (state {state_of(dom, 'plan')})")
    chosen = [e for e in dom.elements if "data-chosen" in e.attrs]
    label = cli["chosen"]["label"]
    check(len(chosen) == 1 and chosen[0].attrs["data-chosen"] == label, f"chosen config shown: {label}")
    rows = dom.find("tr", cls="cand")
    check([r.attrs.get("data-label") for r in rows] == [c["label"] for c in cli["top"]],
          f"the {len(cli['top'])} top candidates in the CLI's order")
    check(len(rows) > 0 and "chosen" in rows[0].classes(), "the first row is marked chosen")
    rules = sorted(e.attrs["data-rule"] for e in dom.find("div", cls="rule"))
    check(rules == sorted(cli["counts"]["rejected_by_rule"]), f"rejection rules listed: {rules}")
    rejected = dom.find("tr", cls="rejected")
    check(len(rejected) == len(cli["rejected"]), f"{len(cli['rejected'])} rejected examples with their rule")
    terms = {e.attrs["data-term"] for e in dom.find("tr") if "data-term" in e.attrs}
    check({"bytes_L2_AB", "bytes_local_AB", "bytes_TC", "bytes_CD", "cycles_L2", "cycles_local", "wave_eff",
           "score"} <= terms, "every term of the seed's score is shown")
    br.screenshot(url, os.path.join(out, "explorer-plan.png"), 2200)


# explain's options -> /api/plan's parameters: the same call spelled both ways.
CALLS = [
    ("in-place", ["4096", "7168", "2048", "--beta", "0.5", "--in-place"], {"beta": "0.5", "in_place": "1"}),
    ("col-major-d", ["1000", "999", "256", "--d-major", "col", "--ldd", "1024", "--offset-d", "1"],
     {"d_major": "col", "ldd": "1024", "offset_d": "1"}),
    ("separate-c", ["512", "512", "512", "--out", "fp32", "--beta", "1", "--alpha", "2", "--c-major", "col",
                    "--ldc", "520", "--c-dtype", "fp32", "--lda", "520", "--offset-b", "3"],
     {"out": "fp32", "beta": "1", "alpha": "2", "c_major": "col", "ldc": "520", "c_dtype": "fp32", "lda": "520",
      "offset_b": "3"}),
    ("repacked-a", ["64", "64", "64", "--layout", "tn", "--lda", "72", "--offset-a", "3"],
     {"layout": "tn", "lda": "72", "offset_a": "3"}),
]


def same_value(shown, want):
    """A data-value attribute against the CLI's JSON value (numbers compared as numbers)."""
    if want is None:
        return shown in (None, "null")
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        try:
            return float(shown) == float(want)
        except (TypeError, ValueError):
            return False
    return shown == str(want)


def test_plan_calls(tg, br, base, out):
    print("plan panel: explain's call options")
    for name, cli_args, params in CALLS:
        m, n, k = cli_args[:3]
        cli = cli_json(tg, "explain", *cli_args, "--device", "h200")
        query = "&".join(f"{key}={v}" for key, v in params.items())
        status, api = get_json(f"{base}/api/plan?m={m}&n={n}&k={k}&device=h200&{query}")
        if status == 200:
            cli["device"].pop("note"), api["device"].pop("note")
        check(status == 200 and api == cli, f"{name}: /api/plan is `tilegemm explain {' '.join(cli_args)} --json`")
        url = f"{base}/?panel=plan&plan.m={m}&plan.n={n}&plan.k={k}&plan.device=h200&" + \
            "&".join(f"plan.{key}={v}" for key, v in params.items())
        dom = br.dom(url)
        check(state_of(dom, "plan") == "ready", f"{name}: plan panel ready (state {state_of(dom, 'plan')})")
        route = [e for e in dom.find("div", within="plan") if "data-path" in e.attrs]
        check(len(route) == 1 and route[0].attrs["data-path"] == cli["path"], f"{name}: path {cli['path']}")
        steps = [" ".join(e.text.split()) for e in dom.find("li", within="plan") if "data-route-step" in e.attrs]
        check(steps == [" ".join(x.split()) for x in cli["route_steps"]],
              f"{name}: the {len(cli['route_steps'])} route steps of the CLI, in order")
        call = cli["call"]
        want = {"d_major": call["d_major"], "c": call["c"], "c_major": call["c_major"], "c_dtype": call["c_dtype"],
                "alpha": call["alpha"], "beta": call["beta"], "lda": call["lda"], "ldb": call["ldb"],
                "ldc": call["ldc"], "ldd": call["ldd"], **{f"offset_{x}": v for x, v in call["offsets"].items()}}
        shown = {e.attrs["data-call"]: e.attrs.get("data-value") for e in dom.elements
                 if e.section == "plan" and "data-call" in e.attrs}
        bad = [key for key, v in want.items() if not same_value(shown.get(key), v)]
        check(not bad, f"{name}: the call shown is the CLI's (differ: {[(b, shown.get(b), want[b]) for b in bad]})")
        chosen = [e for e in dom.elements if "data-chosen" in e.attrs]
        label = cli["chosen"]["label"] if cli.get("chosen") else None
        check(len(chosen) == 1 and chosen[0].attrs["data-chosen"] == label, f"{name}: chosen config {label}")
        if name == "col-major-d":
            br.screenshot(url, os.path.join(out, "explorer-plan-call.png"), 1300)
    dom = br.dom(f"{base}/?panel=plan&plan.m=64&plan.n=64&plan.k=64&plan.in_place=1")
    status = dom.one("div", within="plan", data_role="status")
    check(state_of(dom, "plan") == "error" and status is not None and "in_place" in status.text and "beta" in status.text,
          "plan.in_place=1 without beta: the panel shows the server's 400 naming in_place and the rule")


def test_hardware(br, base, out):
    print("hardware panel")
    status, hw = get_json(f"{base}/api/hardware")
    check(status == 200 and hw.get("schema") == "tilegemm.hardware/1", "/api/hardware answers")
    url = f"{base}/?panel=hardware"
    dom = br.dom(url)
    check(state_of(dom, "hardware") == "ready", f"hardware panel ready (state {state_of(dom, 'hardware')})")
    columns = len(hw["profiles"]) + (1 if hw["live"] and hw["live"]["profile"] else 0)
    table = dom.one("table", cls="profiles")
    check(table is not None and table.attrs.get("data-columns") == str(columns), f"{columns} profile columns")
    for p in hw["profiles"]:
        for key in ("sm_count", "l2_bytes", "smem_per_sm", "tc_peak_flops"):
            cell = dom.one("td", data_profile=p["name"], data_key=key)
            check(cell is not None and float(cell.attrs.get("data-value")) == float(p[key]),
                  f"{p['name']} {key} = {p[key]}")
    if hw["live"] is None:
        none = dom.one("div", data_live="none")
        check(none is not None and hw["live_reason"] in none.text, "no live GPU: the page says why")
    else:
        check(dom.one("div", data_live="present") is not None, f"live GPU shown: {hw['live']['name']}")
    limits = dom.find("td", data_limits="cc90")
    check(len(limits) == 12, f"12 per-SM limits (found {len(limits)})")
    smem = dom.one("td", data_limits="cc90", data_key="smem_per_sm")
    check(smem is not None and smem.attrs.get("data-value") == str(hw["sm_limits"]["smem_per_sm"]), "smem per SM")
    check(dom.one("svg", cls="hw-diagram") is not None, "memory-path diagram drawn")
    br.screenshot(url, os.path.join(out, "explorer-hardware.png"), 1900)


def test_timeline(br, base, out, fixture):
    print("timeline panel")
    status, body = get_json(f"{base}/api/trace")
    check(status == 404 and "no trace yet" in body.get("error", ""), "/api/trace: 404 'no trace yet'")
    url = f"{base}/?panel=timeline"
    dom = br.dom(url)
    check(state_of(dom, "timeline") == "empty", f"no trace: panel state empty (state {state_of(dom, 'timeline')})")
    empty = dom.one("div", data_empty="no-trace")
    check(empty is not None and "No trace yet" in empty.text, "no trace: the page says 'No trace yet'")
    br.screenshot(url, os.path.join(out, "explorer-timeline-empty.png"), 700)

    raw = open(fixture, "rb").read()
    events = json.loads(raw)["traceEvents"]
    # What the panel must draw, counted here independently: X, instants and B/E pairs, and one lane
    # per (pid, tid) that has any of them; lane names from the thread_name metadata.
    want_events = sum(e["ph"] in ("X", "i", "I", "B") for e in events)
    lanes = {(e["pid"], e["tid"]) for e in events if e["ph"] in ("X", "i", "I", "B", "E")}
    check((len(lanes), want_events) == (4, 19), "the fixture still has 4 lanes and 19 events")
    url = f"{base}/?panel=timeline#trace=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    dom = br.dom(url)
    check(state_of(dom, "timeline") == "ready", f"fixture trace: panel ready (state {state_of(dom, 'timeline')})")
    svg = dom.one("svg", cls="timeline")
    check(svg is not None and svg.attrs.get("data-lanes") == str(len(lanes)), f"{len(lanes)} lanes")
    drawn = dom.find("rect", cls="ev")
    check(svg is not None and svg.attrs.get("data-events") == str(want_events) and len(drawn) == want_events,
          f"{want_events} events drawn (found {len(drawn)})")
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    labels = [e.text for e in dom.find("text", cls="lane-label")]
    check(len(labels) == len(lanes) and all(any(n in l for l in labels) for n in names),
          f"lane labels carry the thread names: {labels}")
    br.screenshot(url, os.path.join(out, "explorer-timeline.png"), 700)


def stage_counts(doc, cta):
    """What the stage-local view of `cta` must draw, counted from the trace JSON itself."""
    ev = [e for e in doc["traceEvents"] if e["ph"] == "X" and (e.get("args") or {}).get("cta") == cta]
    return {k: sum(1 for e in ev if e["args"]["kind"] == k) for k in ("tma_issue", "wgmma_issue", "wait_full", "wait_empty")}


def check_stage_view(dom, doc, what):
    box = dom.one("div", within="timeline", data_role="stage-box")
    check(box is not None and "hidden" not in box.attrs, f"{what}: the stage-local view is shown")
    svg = dom.one("svg", data_view="stages")
    if not check(svg is not None, f"{what}: a stage timeline is drawn"):
        return
    a, want = svg.attrs, stage_counts(doc, 0)
    stages = doc["otherData"]["stages"]
    check(a.get("data-cta") == "0" and a.get("data-stages") == str(stages), f"{what}: CTA 0, {stages} stages")
    got = {k: int(a.get(f"data-{n}", -1)) for k, n in (("tma_issue", "tma"), ("wgmma_issue", "wgmma"),
                                                       ("wait_full", "wait-full"), ("wait_empty", "wait-empty"))}
    check(got == want, f"{what}: TMA, WGMMA, WAIT FULL, WAIT EMPTY bars {got} = the trace's {want}")
    options = [o for o in dom.find("option", within="timeline") if "data-cta" in o.attrs]
    check(len(options) == len({e["args"]["cta"] for e in doc["traceEvents"] if e["ph"] == "X" and "cta" in (e.get("args") or {})}),
          f"{what}: one CTA choice per traced CTA ({len(options)})")


def test_stage_timeline(tilegemm, br, base, out, fixture):
    print("timeline panel: a tilegemm trace")
    raw = open(fixture, "rb").read()
    doc = json.loads(raw)
    url = f"{base}/?panel=timeline#trace=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    dom = br.dom(url)
    check(state_of(dom, "timeline") == "ready", f"tilegemm trace: panel ready (state {state_of(dom, 'timeline')})")
    check_stage_view(dom, doc, "#trace=")
    br.screenshot(url, os.path.join(out, "explorer-timeline-stages.png"), 1100)
    # The same file served by `tilegemm serve --trace`: /api/trace answers it and the panel loads it.
    proc, served = start_server(tilegemm, "--trace", fixture)
    try:
        status, body = get_json(f"{served}/api/trace")
        check(status == 200 and body == doc, "serve --trace: /api/trace answers the file")
        dom = br.dom(f"{served}/?panel=timeline")
        check(state_of(dom, "timeline") == "ready", "serve --trace: the panel loads /api/trace")
        check_stage_view(dom, doc, "/api/trace")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def post_json(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_record(br, base, out):
    print("timeline panel: record on the spot")
    _, hw = get_json(f"{base}/api/hardware")
    hopper = hw["live"] is not None and hw["live"].get("compute_capability") == "9.0"
    body = {"m": 256, "n": 512, "k": 1024, "ctas": 4}
    status, doc = post_json(f"{base}/api/trace/record", body)
    status_bad, bad = post_json(f"{base}/api/trace/record", {"m": 256, "n": 512})
    check(status_bad == 400 and bad.get("parameter") == "k", "record without k: 400 naming k")
    url = f"{base}/?panel=timeline&timeline.record=1&" + "&".join(f"timeline.{k}={v}" for k, v in body.items())
    dom = br.dom(url)
    rec = dom.one("div", within="timeline", data_role="record-status")
    if not hopper:
        check(status == 503 and "no Hopper GPU" in doc.get("error", ""), f"no Hopper GPU: 503 saying why ({status})")
        check(rec is not None and rec.attrs.get("data-state") == "error" and doc.get("error", "@") in rec.text,
              "no Hopper GPU: the page shows the server's message")
        check(state_of(dom, "timeline") == "empty" and dom.one("input", within="timeline", data_role="file") is not None,
              "no Hopper GPU: the panel keeps 'No trace yet' and the file input")
    else:
        check(status == 200 and doc["otherData"]["ctas_in_document"] >= 1, f"Hopper GPU: recorded ({status})")
        check(rec is not None and rec.attrs.get("data-state") == "ready", f"the page recorded: {rec and rec.text}")
        check(state_of(dom, "timeline") == "ready", "the panel draws the recording")
        check_stage_view(dom, doc, "recorded")
    br.screenshot(url, os.path.join(out, "explorer-timeline-record.png"), 800)


REPLAY_KINDS = ("wait_empty", "tma_issue", "wait_full", "wgmma_issue", "wgmma_wait", "stage_release", "stmatrix",
                "tma_store_issue", "tma_store_wait", "direct_store", "splitk_partial")


def replay_expected(doc, cta, t):
    """The replay's state at time t, recomputed from the trace JSON: each stage's state, each consumer's
    k-blocks retired of its current tile, each staging box's state (cta_replay.js states the rules)."""
    ev = [e for e in doc["traceEvents"] if e["ph"] == "X" and (e.get("args") or {}).get("cta") == cta]
    consumers = max(e["args"]["lane"] for e in ev)
    key = lambda e: (e["args"]["tile_m"], e["args"]["tile_n"], e["args"]["k_block"])
    uses = {}
    for e in ev:
        if e["args"]["lane"] == 0 and e["args"]["kind"] == "tma_issue":
            uses[key(e)] = {"stage": e["args"]["stage"], "issue": e["ts"], "end": e["ts"] + e["dur"], "landed": None,
                            "mma": None, "retired": e["ts"] + e["dur"], "released": None, "n": 0}
    for e in ev:
        u, end = uses.get(key(e)), e["ts"] + e["dur"]
        if e["args"]["lane"] == 0 or u is None:
            continue
        kind = e["args"]["kind"]
        if kind == "wait_full":
            u["landed"] = end if u["landed"] is None else min(u["landed"], end)
        elif kind == "wgmma_issue":
            u["mma"] = e["ts"] if u["mma"] is None else min(u["mma"], e["ts"])
        elif kind == "wgmma_wait":
            u["retired"] = max(u["retired"], end)
        elif kind == "stage_release":
            u["released"] = end if u["released"] is None else max(u["released"], end)
            u["n"] += 1
    stages = []
    for s in range(doc["otherData"]["stages"]):
        mine = sorted((u for u in uses.values() if u["stage"] == s and u["issue"] <= t), key=lambda u: u["issue"])
        if not mine:
            stages.append("empty")
            continue
        u = mine[-1]
        landed = u["landed"] if u["landed"] is not None else u["end"]
        mma = u["mma"] if u["mma"] is not None else float("inf")
        released = u["released"] if u["n"] >= consumers else float("inf")
        stages.append("empty" if t >= released else "loading" if t < landed else "full" if t < mma
                      else "mma" if t < u["retired"] else "held")
    retired = []
    for c in range(1, consumers + 1):
        tiles = [e for e in ev if e["args"]["lane"] == c and e["args"]["kind"] == "tile" and e["ts"] <= t]
        if not tiles:
            retired.append(0)
            continue
        tile = max(tiles, key=lambda e: e["ts"])["args"]
        retired.append(sum(1 for e in ev if e["args"]["lane"] == c and e["args"]["kind"] == "wgmma_wait"
                           and (e["args"]["tile_m"], e["args"]["tile_n"]) == (tile["tile_m"], tile["tile_n"])
                           and e["ts"] + e["dur"] <= t))
    return stages, retired


def test_replay(br, base, out, doc, raw, name, cta, step):
    print(f"timeline panel: the dataflow replay of CTA {cta} ({name}), step {step}")
    url = f"{base}/?panel=timeline&timeline.cta={cta}&timeline.step={step}#trace=" + \
        base64.urlsafe_b64encode(raw).decode().rstrip("=")
    dom = br.dom(url)
    svg = dom.one("svg", cls="tg-replay")
    if not check(svg is not None, f"{name}: the replay is drawn"):
        return
    a = svg.attrs
    ev = [e for e in doc["traceEvents"] if e["ph"] == "X" and (e.get("args") or {}).get("cta") == cta]
    want = {k: sum(1 for e in ev if e["args"]["kind"] == k) for k in REPLAY_KINDS}
    total = sum(want.values())
    check(a.get("data-cta") == str(cta) and a.get("data-steps") == str(total),
          f"{name}: CTA {cta}, {total} steps = the CTA's recorded steps ({a.get('data-steps')})")
    items = dom.find("li", within="timeline")
    got = {k: sum(1 for li in items if li.attrs.get("data-kind") == k) for k in REPLAY_KINDS}
    check(got == want, f"{name}: one listed step per recorded step, by kind {got}")
    check(a.get("data-step") == str(step - 1), f"{name}: shows step {step} ({a.get('data-step')})")
    t = float(a["data-time"])
    stages, retired = replay_expected(doc, cta, t)
    slots = sorted(dom.find("rect", cls="slot"), key=lambda e: int(e.attrs["data-stage"]))
    shown = [e.attrs.get("data-state") for e in slots]
    check(shown == stages, f"{name}: stage ring at t = {t:.3f} us: {shown} = {stages} from the JSON")
    check(a.get("data-occupied") == str(sum(1 for x in stages if x != "empty")), f"{name}: ring occupancy")
    regs = sorted((e for e in dom.find("rect") if "data-retired" in e.attrs), key=lambda e: int(e.attrs["data-consumer"]))
    check([int(e.attrs["data-retired"]) for e in regs] == retired, f"{name}: k-blocks retired per consumer {retired}")
    kind = a.get("data-kind")
    moves = {"tma_issue": ("l2", "stage"), "wgmma_issue": ("stage", "tc"), "wgmma_wait": ("tc", "regs"),
             "stmatrix": ("regs", "box"), "tma_store_issue": ("box", "gmem"), "direct_store": ("regs", "gmem"),
             "splitk_partial": ("regs", "gmem")}
    flow = dom.find("line", cls="flow")
    if kind in moves:
        check(len(flow) == 1 and (flow[0].attrs.get("data-from"), flow[0].attrs.get("data-to")) == moves[kind],
              f"{name}: step {step} ({kind}) moves {moves[kind][0]} -> {moves[kind][1]}")
    else:
        check(not flow and dom.find("circle", cls="wait-mark"), f"{name}: step {step} ({kind}) waits")
    return url


def count_steps(doc, cta):
    return sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and (e.get("args") or {}).get("cta") == cta
               and e["args"]["kind"] in REPLAY_KINDS)


def test_error_state(br, base):
    print("bad input on the page")
    dom = br.dom(f"{base}/?panel=map&map.m=0&map.n=64&map.k=64")
    status = dom.one("div", within="map", data_role="status")
    check(state_of(dom, "map") == "error" and status is not None and "parameter m" in status.text,
          "map.m=0: the panel shows the server's 400 message naming m")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tilegemm", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--stage-fixture", required=True, help="a trace written by tilegemm trace")
    ap.add_argument("--direct-raw", required=True, help="a raw trace buffer of a direct-epilogue kernel")
    ap.add_argument("--out", required=True, help="folder for the screenshots")
    ap.add_argument("--chromium", help="browser binary (default: the first of %s on PATH)" % ", ".join(CHROMIUMS))
    a = ap.parse_args()
    exe = a.chromium or next((shutil.which(c) for c in CHROMIUMS if shutil.which(c)), None)
    if not exe:
        print("SKIP: no chromium on PATH (apt-get install chromium); the explorer's browser test needs one")
        return SKIP
    os.makedirs(a.out, exist_ok=True)
    print(f"browser: {exe} ({subprocess.run([exe, '--version'], capture_output=True, text=True).stdout.strip()})")
    proc, base = start_server(a.tilegemm)
    print(f"server: {base}")
    started = time.time()
    try:
        with tempfile.TemporaryDirectory(prefix="tilegemm-chromium-") as work:
            br = Browser(exe, work)
            test_hardware(br, base, a.out)
            cli = test_map(a.tilegemm, br, base, a.out, "seed",
                           ["1024", "1024", "4096", "--mapping", "grouped-m:4", "--sms", "8"],
                           {"m": 1024, "n": 1024, "k": 4096, "mapping": "grouped-m:4", "sms": 8}, 2)
            check(cli["grid"]["num_tiles"] == 64 and cli["waves"][2]["working_set_bytes"] == 6 << 20,
                  "seed 1's example: an 8 x 8 grid, 6 MiB per wave")
            test_map(a.tilegemm, br, base, a.out, "persistent",
                     ["2048", "2048", "1024", "--mapping", "hilbert", "--sms", "20", "--persistent", "--cluster", "n"],
                     {"m": 2048, "n": 2048, "k": 1024, "mapping": "hilbert", "sms": 20, "persistent": 1,
                      "cluster": "n"}, 3)
            test_plan(a.tilegemm, br, base, a.out)
            test_plan_calls(a.tilegemm, br, base, a.out)
            test_timeline(br, base, a.out, a.fixture)
            test_stage_timeline(a.tilegemm, br, base, a.out, a.stage_fixture)
            test_record(br, base, a.out)
            # The replay: the TMA-store fixture at several steps and CTAs, and the direct-epilogue
            # fixture decoded by `tilegemm trace --decode` (no GPU needed).
            raw = open(a.stage_fixture, "rb").read()
            doc = json.loads(raw)
            for cta, step in ((0, 1), (0, 11), (0, 30), (1, 55), (3, 90)):
                url = test_replay(br, base, a.out, doc, raw, "TMA store", cta, step)
                if (cta, step) == (0, 11) and url:
                    br.screenshot(url, os.path.join(a.out, "explorer-replay.png"), 2500)
            direct = os.path.join(work, "direct.json")
            subprocess.run([a.tilegemm, "trace", "--decode", a.direct_raw, "--out", direct, "--iters", "0"],
                           check=True, capture_output=True, timeout=120)
            raw = open(direct, "rb").read()
            doc = json.loads(raw)
            for cta, step in ((0, 5), (2, 40), (0, 10**6)):
                test_replay(br, base, a.out, doc, raw, "direct", cta, min(step, count_steps(doc, cta)))
            test_error_state(br, base)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"{br.runs} browser runs in {time.time() - started:.1f} s; screenshots in {a.out}")
    if failures:
        print(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
