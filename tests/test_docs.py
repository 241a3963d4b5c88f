"""The docs site: built once from the notebooks (`latent_mm.docs.build_site`), then every page opened in headless
Chromium over a loopback HTTP server. Screenshots go to `docs_build/screenshots/`. With LATENT_MM_REUSE_SITE=1
an existing `_site/` (from `python -m latent_mm.docs` or an earlier run) is checked without rebuilding it.

The browser is Debian's `/usr/bin/chromium` (`.ci/run` installs it), driven by Playwright's Python package. Without
Chromium (or without npm, for the pages' JavaScript) these tests are skipped, with the install line as the reason;
in CI (the `CI` environment variable set) they fail instead.
"""
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from latent_mm.docs import build_site, npm_assets, readme_markdown, sidebar_pages, page_url
from shared import BUILD, SITE_STAMP, file_lock, run_id

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_site"
SHOTS = BUILD / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HANG_GUARD_MS = 180_000   # generous: only stops a page that never finishes loading, typesetting or rendering
PAGES = [page_url(rel) for _, rel in sidebar_pages(ROOT)]


def test_readme_is_generated_from_index():
    assert (ROOT / "README.md").read_text(encoding="utf-8") == readme_markdown(ROOT), \
        "README.md is stale: run `python -m latent_mm.docs --readme` and commit"


def _sidebar_hrefs(items):
    "Every notebook path or glob written in a quarto sidebar's `contents`."
    if isinstance(items, (str, dict)): items = [items]
    for item in items or []:
        if isinstance(item, dict) and "contents" in item: yield from _sidebar_hrefs(item["contents"])
        elif isinstance(item, dict) and "href" in item: yield item["href"]
        elif isinstance(item, str): yield item


def test_quarto_sidebar_is_sound():
    "The sidebar names existing notebooks, each once, starting with the home page; both _quarto.yml copies agree."
    import yaml
    quarto = yaml.safe_load((ROOT / "_quarto.yml").read_text())
    hrefs = list(_sidebar_hrefs(quarto["website"]["sidebar"]["contents"]))
    assert hrefs[0] == "index.ipynb"
    assert len(set(hrefs)) == len(hrefs), f"listed twice: {[h for h in hrefs if hrefs.count(h) > 1]}"
    nbs = ROOT / "nbs"
    missing = [h for h in hrefs if not (list(nbs.glob(h)) if any(c in h for c in "*?[") else (nbs / h).exists())]
    assert not missing, f"_quarto.yml lists notebooks that are not in nbs/: {missing}"
    copies = [p for p in (ROOT / "_quarto.yml", nbs / "_quarto.yml") if p.exists()]
    assert len({p.read_text() for p in copies}) == 1, "_quarto.yml and nbs/_quarto.yml differ"


# ---------------------------------------------------------------------------------------------------------------
# Build once per test run. Under pytest-xdist several workers may ask for the site: the first builds it under a
# file lock, the others find it stamped with this run's id and reuse it.


@pytest.fixture(scope="session")
def modules():
    "The npm packages of the site's JavaScript (`npm ci` once, if `.ci/run` has not run it)."
    if not (ROOT / "node_modules").exists() and shutil.which("npm") is None:
        _missing("npm", "apt-get update && apt-get install -y npm")
    with file_lock(BUILD / "npm.lock"): return npm_assets(ROOT)


@pytest.fixture(scope="session")
def site(modules):
    stamp = SITE_STAMP
    with file_lock(BUILD / "site.lock"):
        run, _, outcome = stamp.read_text().partition("\n") if stamp.exists() else ("", "", "")
        reuse = os.environ.get("LATENT_MM_REUSE_SITE") == "1" and (SITE / "pages.json").exists()
        if reuse: outcome = "ok"          # iterating on these checks: keep the site of an earlier build
        elif run != run_id():
            try:
                summary = build_site(ROOT, SITE, modules=modules)
                outcome = "ok"
                print(f"docs site built in {summary['seconds']}")
            except Exception as e:       # a failed build is reported once per worker, not rebuilt
                outcome = f"{type(e).__name__}: {e}"
            stamp.write_text(f"{run_id()}\n{outcome}")
    if outcome != "ok": pytest.fail(f"the docs build failed: {outcome}")
    return json.loads((SITE / "pages.json").read_text())


@pytest.fixture(scope="session")
def widget_site(tmp_path_factory, modules):
    "A throwaway project: a home page and, in experiments/, the widget explorer of tests/fixtures."
    import nbformat
    root = tmp_path_factory.mktemp("widget_project")
    shutil.copy(ROOT / "settings.ini", root / "settings.ini")
    (root / "nbs" / "experiments").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "fixtures" / "01_widget_explorer.ipynb", root / "nbs" / "experiments")
    home = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "# Fixture home\n\n> A page linking [the explorer](experiments/01_widget_explorer.ipynb).")])
    nbformat.write(home, root / "nbs" / "index.ipynb")
    (root / "_quarto.yml").write_text("website:\n  sidebar:\n    contents:\n      - index.ipynb\n"
                                      "      - section: Experiments\n        contents: experiments/*.ipynb\n")
    build_site(root, root / "_site", n_workers=1, modules=modules)
    return root / "_site"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass


@contextlib.contextmanager
def _serve(folder):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try: yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _missing(tool: str, install: str):
    "A system tool the docs tests need is absent: skip them on a developer's machine, fail in CI (`CI` set)."
    reason = f"{tool} is missing: {install}"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        _missing(str(CHROMIUM), "apt-get update && apt-get install -y chromium")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="session")
def served_site(site):
    with _serve(SITE) as base: yield base


# ---------------------------------------------------------------------------------------------------------------
# What a page must show in the browser.

def _open(browser, base, url):
    "Open `url` under `base`; return the page and the problems seen: JS errors, failed or foreign requests."
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []
    page.on("pageerror", lambda e: problems.append(f"JavaScript error: {e}"))
    page.on("console", lambda m: problems.append(f"console error: {m.text}") if m.type == "error" else None)
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} {r.failure}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)

    def route(r):
        if r.request.url.startswith(base) or r.request.url.startswith("data:"): r.continue_()
        else:
            problems.append(f"request leaves the site: {r.request.url}")
            r.abort()
    page.route("**/*", route)
    page.goto(base + url, wait_until="load", timeout=HANG_GUARD_MS)
    return page, problems


def _wait(page, problems, condition, what, arg=None):
    "Wait for the JavaScript `condition`; a page that never gets there records `what` as a problem."
    try: page.wait_for_function(condition, arg=arg, timeout=HANG_GUARD_MS)
    except Exception as e: problems.append(f"{what} never happened: {str(e).splitlines()[0]}")


def _check_page(page, problems, facts):
    "Typeset math, loaded figures and rendered widgets where `facts` say the page has them."
    if facts["has_math"]:
        _wait(page, problems, "() => window.MathJax && MathJax.Hub && MathJax.isReady", "MathJax start-up")
        if page.evaluate("() => !!(window.MathJax && MathJax.isReady)"):   # queued after the page's own Typeset
            page.evaluate("() => MathJax.Hub.Queue(() => { window.__typeset = true; })")
            _wait(page, problems, "() => window.__typeset === true", "typesetting")
        n_math = page.locator(".MathJax_CHTML, .MathJax_Display").count()
        n_err = page.locator(".MathJax_Error, .mjx-merror, .mjx-noError").count()
        if n_math == 0: problems.append("the notebook has math but the page shows no typeset math")
        if n_err: problems.append(f"{n_err} formulas failed to typeset")
        raw = page.evaluate(r"""() => [...document.querySelectorAll('.jp-RenderedMarkdown p, .jp-RenderedMarkdown li')]
            .map(e => e.innerText).filter(t => /\$[^$\s][^$]*\$/.test(t)).slice(0, 3)""")
        if raw: problems.append(f"untypeset TeX left in the text: {raw}")
    if facts["n_figures"]:
        sizes = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output img, .jp-RenderedSVG svg')]
            .map(e => e.tagName === 'IMG' ? (e.complete ? e.naturalWidth : 0) : e.getBoundingClientRect().width)""")
        shown = sum(s > 50 for s in sizes)
        if shown < facts["n_figures"]:
            problems.append(f"{facts['n_figures']} figures in the notebook, {shown} shown ({sizes})")
    if facts["n_widgets"]:
        views = ".widget-subarea > .jupyter-widgets"      # the html manager draws each stored view in a subarea
        _wait(page, problems, f"n => document.querySelectorAll('{views}').length >= n", "widget rendering",
              arg=facts["n_widgets"])
        views = page.evaluate(f"""() => [...document.querySelectorAll('{views}')].map(e => {{
            const r = e.getBoundingClientRect();
            return {{w: r.width, h: r.height, text: e.innerText.trim().length,
                    controls: e.querySelectorAll('input, .slider, select, button, img').length}}; }})""")
        errors = page.locator(".jupyter-widgets-error-widget").count()
        visible = [v for v in views if v["w"] > 50 and v["h"] > 20 and (v["controls"] or v["text"])]
        if errors: problems.append(f"{errors} widgets failed to render")
        if len(visible) < facts["n_widgets"]:
            problems.append(f"{facts['n_widgets']} widget views in the notebook, {len(visible)} rendered: {views}")
    return problems


def _screenshot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _experiment_page(site):
    "The first page under experiments/, else the first page with a figure."
    pages = site["pages"]
    return next((p["url"] for p in pages if p["source"].startswith("experiments/")),
                next((p["url"] for p in pages if p["n_figures"]), None))


@pytest.mark.parametrize("url", PAGES)
def test_page_renders_in_browser(url, site, served_site, browser):
    facts = {p["url"]: p for p in site["pages"]}[url]
    page, problems = _open(browser, served_site, url)
    try:
        _check_page(page, problems, facts)
        if url == "index.html": _screenshot(page, "home")
        if url == _experiment_page(site): _screenshot(page, "experiment")
    finally:
        page.close()
    assert not problems, f"{url}: " + "\n".join(problems)


def test_every_figure_a_notebook_draws_reaches_its_page(site):
    "A figure left open after its cell was drawn but never shown (the backend switched away from inline): none."
    lost = {p["url"]: p["unshown_figures"] for p in site["pages"] if p["unshown_figures"]}
    assert not lost, f"figures drawn but missing from their pages (did code call matplotlib.use?): {lost}"


def test_site_has_no_remote_scripts_nor_quarto_leftovers(site):
    pages = [p for p in SITE.rglob("*.html") if "_assets" not in p.parts and "_source" not in p.parts]
    assert len(pages) == len(PAGES)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]*)"', text)
        remote += re.findall(r"""['"]((?:https?:)?//(?:cdn|unpkg|cdnjs)[^'"]*)['"]""", text)
        assert not remote, f"{page.relative_to(SITE)} loads {remote}"
        directives = re.findall(r'<span class="c1">#\s?\|[^<]*', text)      # cell options shown as code
        prose = re.sub(r"<pre\b.*?</pre>", "", text, flags=re.DOTALL)
        attributes = re.findall(r'\]\([^)\s]*\)\{[^}]*\}|\{target=[^}]*\}', prose)  # quarto link attributes
        assert not directives and not attributes, f"{page.relative_to(SITE)}: {directives[:3]} {attributes[:3]}"
    assert (SITE / "_assets" / "mathjax" / "MathJax.js").exists()


def test_no_page_shows_a_warning(site):
    "A warning in a rendered page (with the build machine's paths) is noise to a reader: a page catches what it expects."
    shown = {}
    for page in SITE.rglob("*.html"):
        if "_assets" in page.parts or "_source" in page.parts:
            continue
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        hits = re.findall(r"\b\w*Warning: [^\n]{0,80}", text)
        hits = [h for h in hits if re.search(r"(/[\w.-]+)+\.py:\d+", text[max(0, text.find(h) - 200):text.find(h)])]
        if hits:
            shown[str(page.relative_to(SITE))] = hits[:2]
    assert not shown, f"pages show warnings: {shown}"


def test_source_links_stay_on_the_site(site):
    "`show_doc`'s source links lead to the site's own source pages, never to the repository address in settings.ini."
    from latent_mm.docs import project_config
    git_url = project_config(ROOT).git_url
    leaving = [f"{p.relative_to(SITE)}: {href}" for p in SITE.rglob("*.html") if "_assets" not in p.parts
               for href in re.findall(r'<a\b[^>]*\bhref="([^"]*)"', p.read_text(encoding="utf-8")) if href.startswith(git_url)]
    assert not leaving, leaving[:5]
    sources = [href for href in re.findall(r'<a\b[^>]*\bhref="([^"#]*_source/[^"#]*)', (SITE / "core.html").read_text(encoding="utf-8"))]
    assert sources, "core.html shows no source link"
    for href in sources:
        assert (SITE / href).exists(), href


def test_pages_follow_the_quarto_sidebar(site, served_site, browser):
    page, problems = _open(browser, served_site, "index.html")
    try:
        links = page.eval_on_selector_all(".lmm-sidebar li a", "els => els.map(e => e.getAttribute('href'))")
        assert links == PAGES
        for href in links:                       # every sidebar link resolves to a page
            assert (SITE / href).exists(), href
    finally:
        page.close()
    assert not problems, problems


def test_widget_explorer_renders(widget_site, browser):
    "An explorer on a page in a subfolder: stored widget state drawn with no kernel, assets found via ../"
    pages = {p["url"]: p for p in json.loads((widget_site / "pages.json").read_text())["pages"]}
    assert list(pages) == ["index.html", "experiments/widget_explorer.html"]
    facts = pages["experiments/widget_explorer.html"]
    assert facts["n_widgets"] >= 1 and facts["n_figures"] >= 1 and facts["has_math"]
    with _serve(widget_site) as base:
        page, problems = _open(browser, base, "index.html")
        try:
            links = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
            if "experiments/widget_explorer.html" not in links: problems.append(f"home links {links}")
        finally:
            page.close()
        page, problems = _open(browser, base, "experiments/widget_explorer.html")
        try:
            _check_page(page, problems, facts)
            sliders = page.locator(".widget-slider").count()
            if sliders < 2: problems.append(f"expected the two sliders of the explorer, found {sliders}")
            images = page.evaluate("() => [...document.querySelectorAll('.jupyter-widgets img')].map(e => e.naturalWidth)")
            if not any(w > 50 for w in images): problems.append(f"the explorer's figure is not shown ({images})")
            skipped = page.evaluate("""() => [...document.querySelectorAll('.celltag_not-executed')]
                .map(e => e.querySelectorAll('.jp-OutputArea-output').length)""")
            if skipped != [0]: problems.append(f"the slow cell should be shown once, not run: {skipped}")
            side = page.eval_on_selector_all(".lmm-sidebar li a", "els => els.map(e => e.getAttribute('href'))")
            if side != ["../index.html", "../experiments/widget_explorer.html"]: problems.append(f"sidebar {side}")
            _screenshot(page, "widget_explorer")
        finally:
            page.close()
    assert not problems, "\n".join(problems)


def _main_links(html_text):
    "The hrefs of a page's content, without its sidebar."
    main = html_text[html_text.index('<main class="lmm-main">'):]
    return re.findall(r'<a\b[^>]*\bhref="([^"]*)"', main)


def test_home_page_links_every_page(site):
    linked = {href.partition("#")[0] for href in _main_links((SITE / "index.html").read_text(encoding="utf-8"))}
    missing = [url for url in PAGES if url != "index.html" and url not in linked]
    assert not missing, f"nbs/index.ipynb does not link {missing}: add them to its tables"


def test_links_between_pages_resolve(site):
    broken = []
    for page in SITE.rglob("*.html"):
        if "_assets" in page.parts: continue
        for href in re.findall(r'<a\b[^>]*\bhref="([^"]*)"', page.read_text(encoding="utf-8")):
            path = href.partition("#")[0].partition("?")[0]
            if not path or re.match(r"^[a-z]+:", path): continue
            if not (page.parent / path).resolve().exists():
                broken.append(f"{page.relative_to(SITE)} -> {href}")
    assert not broken, broken


def test_cells_with_imports_hold_only_imports():
    """nbdev's docs processing runs every cell that imports something, on its own and before the rest of the
    notebook has run; a cell that mixes imports with code then fails in the docs build only. The home page's
    examples are exempt: each is self-contained, as a reader copies it."""
    import nbformat
    imports = re.compile(r"\s*(from\s+\S+\s+import|import)\s")
    mixed = []
    for nb in sorted((ROOT / "nbs").rglob("*.ipynb")):
        if nb.name == "index.ipynb" or ".ipynb_checkpoints" in nb.parts:
            continue
        for i, cell in enumerate(nbformat.read(nb, as_version=4).cells):
            lines = cell.source.splitlines()
            if cell.cell_type != "code" or not lines or lines[0].startswith(("#| export", "#|export", "#| hide")):
                continue
            code = [l for l in lines if l.strip() and not l.lstrip().startswith("#")]
            if any(imports.match(l) for l in code) and not all(imports.match(l) for l in code):
                mixed.append(f"{nb.relative_to(ROOT / 'nbs')} cell {i}")
    assert not mixed, f"move these cells' imports to the notebook's '#| hide' cell: {mixed}"
