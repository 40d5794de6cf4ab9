"""Screenshots of the translated screens in 简体中文, light and dark (a script, not a test):

    PYTHONPATH=. python tests/e2e/screens_zh.py [folder]     # default build/screenshots/zh

Starts the app twice on fresh data folders (`SEQDESK_LANG=zh-CN`; once with a token, for the
login page), shows the Sequences page (empty; with sequences and a schedule; its menu, delete and
import dialogs), the sequence editor (the seed's example; a group of several kinds of tool; the tool
palette, the guide, the data picker, the Text tab, Test this group; at a phone's width), the Run page
(empty, and with a sequence's inputs), Settings (with a server at a web address, so its row, its
headers and its state show), the phone's pages and the sign-in result page, a run waiting for an
approval and one that succeeded (the run panel), the inbox (desktop and phone), the runs history and
a run record, each in light and dark, desktop and phone width.
Needs a CJK font (Debian: fonts-noto-cjk), or Chinese shows as boxes.

On every screen it also reads what is visible (text, aria-labels, placeholders, titles, outside elements
marked as data) and lists each run of Latin letters that is not a name (tests/support/i18n_screens.py) in
`english-words.txt` beside the screenshots: the words still left in English.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from tempfile import mkdtemp
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/support, shared with the UI tests

from playwright.sync_api import Page, sync_playwright
from support.app import ROOT, app_command, clean_env, free_port, wait_until_up
from support.browser import CHROMIUM, CHROMIUM_ARGS
from support.i18n_screens import untranslated_runs

from gui.api.pairing import _RETRY, _page, gone_body, not_paired_body, pair_body
from gui.core.sequences.help import SEED_EXAMPLE
from gui.i18n import use_language

TOKEN = "screens-zh-token-0123456789abcdef"
# Names the screens below show that are data (sequences, groups, inputs, tools, commands), when not marked so.
DATA_WORDS = {"greet", "deploy", "hello", "wait-a-bit", "build", "ship", "who", "said", "Ada", "hi", "echo", "sleep",
              "cmd_run", "uptime", "built", "docs", "Authorization", "Bearer", "x", "value", "seconds", "command",
              "args", "tool", "as"}
FOUND: dict[str, list[str]] = {}
RUN_ID = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b")  # a run's id (data) inside a sentence

_VISIBLE_TEXTS = """() => {
  const skip = (el) => el.closest('.seqdesk-data, .seqdesk-kbd, script, style, noscript, .q-icon, .material-icons');
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && getComputedStyle(el).visibility !== 'hidden'; };
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.textContent.trim();
    if (text && el && !skip(el) && shown(el)) out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
    if (skip(el) || !shown(el)) continue;
    for (const name of ['aria-label', 'placeholder', 'title']) { const v = el.getAttribute(name); if (v) out.push(v); }
  }
  return out;
}"""


def scan(page: Page, screen: str) -> None:
    """Keep every untranslated word visible on this screen (see the module's docstring)."""
    for text in page.evaluate(_VISIBLE_TEXTS):
        runs = untranslated_runs(RUN_ID.sub(" ", text), DATA_WORDS)
        if runs:
            FOUND.setdefault(screen, []).append(f"{text[:90]!r}: {runs}")


def shoot(page: Page, out: Path, name: str, *, full_page: bool = True) -> None:
    if full_page:
        page.evaluate("window.scrollTo(0, 0)")  # else the fixed header is drawn where the page was scrolled to
    settle(page)
    page.wait_for_function("!document.querySelector('[class*=-enter-active], [class*=-leave-active]')")  # no fading
    page.screenshot(path=str(out / f"{name}.png"), full_page=full_page)
    scan(page, name)


def start(token: str | None, dark: bool) -> tuple[subprocess.Popen[bytes], str]:
    folder = Path(mkdtemp(prefix="seqdesk-zh-"))
    data = folder / "data"
    data.mkdir()
    (data / "preferences.json").write_text(json.dumps({"dark": dark}))
    env = clean_env(data) | {"SEQDESK_LANG": "zh-CN"}
    if token:
        env["SEQDESK_TOKEN"] = token
    port = free_port()
    log = folder / "app.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(app_command(port), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_until_up(proc, url, log)
    return proc, url


def settle(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready")


def shoot_settings(page: Page, url: str, out: Path, look: str) -> None:
    page.goto(url + "/settings")
    page.get_by_text("添加服务器").first.wait_for()
    lang = page.evaluate("document.documentElement.lang")
    assert lang == "zh-CN", f"the page says it is in {lang!r}: the browser then picks a font for that language"
    page.get_by_text("添加服务器").first.click()
    page.get_by_text("网址", exact=True).click()
    page.get_by_label("名称（简短，例如 time）").fill("docs")
    page.get_by_label("网址（http:// 或 https://）").fill("http://127.0.0.1:9/mcp")
    page.get_by_label("请求头，每行一个“名称: 值”（可选，例如 API 密钥）").fill("Authorization: Bearer x")
    page.locator("[data-testid=mcp-add], button:has-text('添加服务器')").last.click()
    page.get_by_text("已添加 docs").first.wait_for()
    shoot(page, out, f"settings-{look}")
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, out, f"settings-phone-{look}", full_page=False)
    page.locator("[aria-label='菜单']").click()
    page.locator(".seqdesk-menu").get_by_text("收件箱").wait_for()
    page.wait_for_function("getComputedStyle(document.querySelector('.seqdesk-menu')).opacity === '1' && "
                           "!document.querySelector('.q-transition--fade-enter-active')")  # opened, not fading in
    shoot(page, out, f"menu-phone-{look}", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 860})


def api(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def calls(*objs: dict[str, Any]) -> str:
    return " ".join(json.dumps(o) + " ;" for o in objs)


def runs(url: str) -> tuple[str, str]:
    """A run that succeeded and one waiting for an approval (a command), made through the HTTP API."""
    api(url, "/api/sequences", {"name": "greet", "groups": [
        {"name": "hello", "in": {"who": "string"}, "out": {"said": "string"},
         "tools": calls({"tool": "echo", "args": {"value": "hi $args.who"}, "as": "said"})},
        {"name": "wait-a-bit", "in": {}, "out": {}, "tools": calls({"tool": "sleep", "args": {"seconds": 0.3}})}]})
    api(url, "/api/sequences", {"name": "deploy", "groups": [
        {"name": "build", "in": {}, "out": {}, "tools": calls({"tool": "echo", "args": {"value": "built"}},
                                                              {"tool": "echo", "args": {"value": 2}})},
        {"name": "ship", "in": {}, "out": {}, "tools": calls({"tool": "cmd_run", "args": {"command": "uptime"}})}]})
    done = api(url, "/api/runs", {"sequence": "greet", "args": {"who": "Ada"}})["run_id"]
    waiting = api(url, "/api/runs", {"sequence": "deploy"})["run_id"]
    return done, waiting


def shoot_runs(page: Page, url: str, out: Path, look: str) -> None:
    done, waiting = runs(url)
    page.goto(f"{url}/run/{waiting}")
    page.get_by_text("1 个请求需要你处理").first.wait_for()
    page.locator("[data-testid=tool-0-0], .q-card:has-text('echo')").first.click()
    page.get_by_text("发送的参数").first.wait_for()
    page.wait_for_function("!document.querySelector('[class*=q-transition--slide]')")  # the tab has slid in
    shoot(page, out, f"run-waiting-{look}")
    page.goto(f"{url}/inbox")
    page.get_by_text("想要运行").first.wait_for()
    shoot(page, out, f"inbox-{look}")
    page.goto(f"{url}/run/{done}")
    page.get_by_text("已结束 · 2 个工具中 2 个成功").first.wait_for()
    shoot(page, out, f"run-done-{look}")
    page.goto(f"{url}/runs")
    page.get_by_text("2 次运行").first.wait_for()
    shoot(page, out, f"runs-{look}")
    page.goto(f"{url}/runs/{done}")
    page.get_by_text("运行时的输入").first.wait_for()
    shoot(page, out, f"run-record-{look}")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{url}/inbox")
    page.get_by_text("想要运行").first.wait_for()
    shoot(page, out, f"inbox-phone-{look}")
    page.set_viewport_size({"width": 1280, "height": 860})


def shoot_home_empty(page: Page, url: str, out: Path, look: str) -> None:
    page.goto(url + "/")
    page.get_by_text("还没有序列").wait_for()
    shoot(page, out, f"sequences-empty-{look}")
    page.goto(url + "/run")
    page.get_by_text("序列", exact=True).first.wait_for()
    shoot(page, out, f"run-empty-{look}")


BROKEN = b'{"name": "broken", "groups": [{"name": "g", "in": {}, "out": {}, "tools": "{\\"tool\\": \\"echo\\"}"}]}'


def shoot_home(page: Page, url: str, out: Path, look: str) -> None:
    """The list with the sequences `runs` made and a schedule; its delete and import dialogs; a run's inputs."""
    api(url, "/api/schedules", {"sequence": "greet", "args": {"who": "Ada"}, "every": "15m"})
    page.goto(url + "/")
    page.get_by_text("每 15 分钟").first.wait_for()
    shoot(page, out, f"sequences-{look}")
    page.locator("[aria-label='更多操作']").first.click()
    page.get_by_text("删除…").first.wait_for()
    shoot(page, out, f"sequences-menu-{look}", full_page=False)
    page.get_by_text("删除…").first.click()
    page.get_by_text("删除后无法恢复").wait_for()
    shoot(page, out, f"sequences-delete-{look}", full_page=False)
    page.get_by_text("保留", exact=True).click()
    page.get_by_text("删除后无法恢复").wait_for(state="hidden")
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "broken.json", "mimeType": "application/json", "buffer": BROKEN}])
    page.get_by_text("这个文件无法直接导入").wait_for()
    shoot(page, out, f"sequences-import-problems-{look}", full_page=False)
    page.get_by_text("关闭", exact=True).click()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url + "/")
    page.get_by_text("每 15 分钟").first.wait_for()
    shoot(page, out, f"sequences-phone-{look}")
    page.set_viewport_size({"width": 1280, "height": 860})
    page.goto(url + "/run?sequence=greet")
    page.get_by_text("who").first.wait_for()
    shoot(page, out, f"run-inputs-{look}")


def report(out: Path) -> None:
    lines = [f"{screen}\n" + "\n".join(f"  {found}" for found in dict.fromkeys(words)) for screen, words in
             sorted(FOUND.items())]
    (out / "english-words.txt").write_text("\n".join(lines) + "\n" if lines else "none\n", encoding="utf-8")
    print(f"words left in English on {len(FOUND)} screens (see {out / 'english-words.txt'})")


def shoot_editor(page: Page, url: str, out: Path, look: str) -> None:
    """The editor in Chinese: the seed's example, a group of several kinds of tool, the palette, the
    guide, the data picker, the Text tab and a test of one group (waiting for an approval), and the
    example at a phone's width."""
    api(url, "/api/sequences", json.loads(SEED_EXAMPLE))
    api(url, "/api/sequences", {"name": "tools-zh", "description": "几种工具", "groups": [
        {"name": "ask-and-write", "in": {"host": "string"}, "out": {"answers": "object"},
         "when": "$args.host != \"\"", "parallel": False, "on_error": "retry", "timeout": "30s",
         "tools": calls({"tool": "ask_user", "args": {"title": "部署", "questions": [
             {"prompt": "哪个环境？", "id": "env", "type": "single_select",
              "options": [{"label": "生产", "value": "prod"}, {"label": "测试", "value": "test"}]}]},
             "as": "answers"},
             {"tool": "http_get", "args": {"url": "https://example.org/$args.host"}},
             {"tool": "file_write", "args": {"path": "/tmp/report.txt", "content": "完成"}})}]})
    page.goto(f"{url}/sequences/巡检三节点/edit")
    page.get_by_text("运行条件：host 不为 空").first.wait_for()
    shoot(page, out, f"editor-example-{look}")
    page.get_by_role("button", name="添加工具").first.click()
    page.locator(".q-dialog").get_by_text("运行前会先问你").first.wait_for()
    shoot(page, out, f"editor-palette-{look}", full_page=False)
    page.keyboard.press("Escape")
    page.locator(".q-dialog").wait_for(state="hidden")
    page.locator("button:has(i:text('help_outline'))").click()
    page.get_by_text("编辑器怎么用").wait_for()
    page.wait_for_function("(() => { const r = document.querySelector('.q-dialog .q-card').getBoundingClientRect();"
                           " return r.right <= window.innerWidth + 1; })()")  # slid in, not sliding
    shoot(page, out, f"editor-guide-{look}", full_page=False)
    page.keyboard.press("Escape")
    page.get_by_text("编辑器怎么用").wait_for(state="hidden")
    page.get_by_role("button", name="使用输入").last.click()  # group 2's command from an input: the data picker
    page.get_by_label("命令 *（来自输入）").click()
    page.locator(".q-menu").get_by_text("第 1 组 › summary · 文本").wait_for()
    page.wait_for_function("!document.querySelector('[class*=q-transition--]')")  # opened, not fading in
    shoot(page, out, f"editor-picker-{look}", full_page=False)
    page.keyboard.press("Escape")
    page.get_by_role("tab", name="文本").click()
    page.get_by_text("同一个序列的文本格式").wait_for()
    shoot(page, out, f"editor-text-{look}", full_page=False)
    page.goto(f"{url}/sequences/tools-zh/edit")
    page.get_by_text("结果保存到").first.wait_for()
    page.get_by_role("button", name="测试这个组").last.click()
    page.get_by_label("host").fill("node-a")
    page.get_by_role("button", name="运行测试").click()
    page.get_by_text("到收件箱中回答").first.wait_for()
    shoot(page, out, f"editor-tools-{look}")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{url}/sequences/巡检三节点/edit")
    page.get_by_text("运行条件：host 不为 空").first.wait_for()
    shoot(page, out, f"editor-phone-{look}", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 860})


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "screenshots" / "zh"
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for look in ("light", "dark"):
            context = browser.new_context(viewport={"width": 1280, "height": 860}, color_scheme=look,
                                          locale="zh-CN")
            page = context.new_page()
            page.set_default_timeout(20_000)
            proc, url = start(None, dark=look == "dark")
            try:
                shoot_home_empty(page, url, out, look)
                shoot_settings(page, url, out, look)
                shoot_runs(page, url, out, look)
                shoot_home(page, url, out, look)
                shoot_editor(page, url, out, look)
                page.goto(url + "/oauth/callback?state=x&code=y")
                shoot(page, out, f"oauth-callback-{look}", full_page=False)
                page.goto(url + "/pair/not-a-code")
                shoot(page, out, f"pair-expired-{look}", full_page=False)
            finally:
                proc.terminate()
                proc.wait(timeout=15)
            with use_language("zh-CN"):
                not_paired = not_paired_body().replace(_RETRY, "")  # no reload of a page set here
                pages = (("pair", pair_body("/pair/x")), ("not-paired", not_paired), ("pair-gone", gone_body()))
                for name, body in pages:
                    page.set_viewport_size({"width": 390, "height": 844})
                    page.set_content(_page(body).body.decode())
                    shoot(page, out, f"phone-{name}-{look}", full_page=False)
            proc, url = start(TOKEN, dark=look == "dark")
            try:
                page.set_viewport_size({"width": 1280, "height": 860})
                page.goto(url + "/settings")
                page.fill("#token", "wrong")
                page.click("button[type=submit]")
                shoot(page, out, f"login-{look}", full_page=False)
            finally:
                proc.terminate()
                proc.wait(timeout=15)
            context.close()
        browser.close()
    report(out)
    print(f"screenshots in {out}: {sorted(p.name for p in out.glob('*.png'))}")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
