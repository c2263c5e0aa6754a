"""The HTML replay page in headless Chromium: it opens offline, the slider and the
view switch change what the page shows. Skips when Chromium (Debian packages
``chromium`` and ``chromium-driver``) or selenium is not installed."""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import pytest

from spyenvs.tools.html_replay import write_html_replay
from spyenvs.tools.replay import ReplayTimeline

from .records import toy_record

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
CHROMEDRIVER = shutil.which("chromedriver")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.fixture
def page(toy_env_id, tmp_path):
    rec = toy_record(toy_env_id)
    return write_html_replay(rec, tmp_path / "replay.html"), ReplayTimeline(rec)


def _element_text(dom: str, element_id: str) -> str:
    m = re.search(rf'id="{element_id}"[^>]*>(.*?)</', dom, re.S)
    assert m, f"no #{element_id} in the page"
    return html.unescape(m.group(1))


@needs_chromium
def test_dump_dom_at_a_step_and_view_from_the_address(page, tmp_path):
    path, tl = page
    url = path.resolve().as_uri() + "#step=2&view=player_1"
    dom = subprocess.run(
        [CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url],
        capture_output=True, text=True, timeout=90, check=True,
    ).stdout
    assert _element_text(dom, "step-label") == "step 2 / 3"
    assert _element_text(dom, "state-text") == tl.states[2].render_text(1)
    assert _element_text(dom, "last-move") == "#2 player_1: swap"
    assert _element_text(dom, "view-name") == "player_1"


@needs_chromium
def test_slider_and_view_switch_in_a_real_browser(page, tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver")
    if CHROMEDRIVER is None:
        pytest.skip("chromedriver is not installed (apt-get install chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    path, tl = page
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (*CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    try:
        driver.get(path.resolve().as_uri())
        text = lambda eid: driver.find_element(By.ID, eid).text  # noqa: E731

        assert text("step-label") == "step 0 / 3"
        assert text("state-text") == tl.states[0].render_text(None)
        slider = driver.find_element(By.ID, "step")
        slider.send_keys(Keys.ARROW_RIGHT)
        slider.send_keys(Keys.ARROW_RIGHT)
        assert text("step-label") == "step 2 / 3"
        assert text("state-text") == tl.states[2].render_text(None)
        assert text("last-move") == "#2 player_1: swap"
        current = driver.find_elements(By.CSS_SELECTOR, "#move-log li.current")
        assert [li.text for li in current] == ["player_1: swap"]

        # a role's view: its own text, and other roles' hidden choices unlabelled
        Select(driver.find_element(By.ID, "view")).select_by_visible_text("player_2")
        assert text("state-text") == tl.states[2].render_text(2)
        assert text("view-name") == "player_2"
        log = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#move-log li")]
        assert log == ["player_0: (stay_or_swap)", "player_1: (stay_or_swap)", "player_2: swap"]

        driver.find_element(By.ID, "next").click()
        assert text("step-label") == "step 3 / 3" and text("status").startswith("game over")
        driver.find_elements(By.CSS_SELECTOR, "#move-log li")[0].click()
        assert text("step-label") == "step 1 / 3"
        assert text("state-text") == tl.states[1].render_text(2)
        assert driver.find_element(By.ID, "state-img").is_displayed() is False

        # with pictures: each step shows its inline PNG, decoded by the browser
        pictures = write_html_replay(tl.record, tmp_path / "pictures.html", images="all")
        driver.get(pictures.resolve().as_uri() + "#view=player_0")
        img = driver.find_element(By.ID, "state-img")
        assert img.is_displayed() and img.get_attribute("src").startswith("data:image/png;base64,")
        assert img.get_property("naturalWidth") > 0 and img.get_property("complete")
        first = img.get_attribute("src")
        driver.find_element(By.ID, "step").send_keys(Keys.END)
        assert text("step-label") == "step 3 / 3" and img.get_attribute("src") != first
    finally:
        driver.quit()
