"""The action cache end to end: miss, hit with zero model calls, heal, removal, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ActError, AsyncStagehand, CacheMissError, CacheWarning
from stagehand_py.cache import ActionCache
from stagehand_py.cache._manage import entry_diff
from stagehand_py.cli import main
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM, observe_answer, observed
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

FORM_STEPS = [
    Step("fill", r"^<input\b[^>]*first", ["Ada"]),
    Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
    Step("fill", r"^<input\b[^>]*password", ["<|PASSWORD|>"]),
    Step("click", r"^<button\b[^>]*>.*Submit"),
]
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
INSTRUCTION = "fill the signup form with <|EMAIL|> and <|PASSWORD|> and submit it"


async def _first_run(page: AsyncPage, url: str, cache_dir: Path) -> AsyncStagehand:
    stagehand = AsyncStagehand(llm=AsyncPlanLLM(FORM_STEPS), cache_dir=cache_dir)
    wrapped = stagehand.wrap(page)
    await wrapped.goto(url)
    result = await wrapped.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "miss" and result.success
    return stagehand


@pytest.mark.no_sync_twin
async def test_second_run_replays_with_zero_model_calls(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    stored = json.loads(entry_file.read_text("utf-8"))
    assert [a["method"] for a in stored["actions"]] == ["fill", "fill", "fill", "click"]
    assert all(len(a["selectors"]) >= 2 for a in stored["actions"])
    assert stored["actions"][1]["arguments"] == ["<|EMAIL|>"]
    assert stored["actions"][1]["fingerprint"]["tag"] == "input"

    other_email = "grace@navy.test"
    replayer = AsyncPlanLLM([])  # any model call would be visible in .calls
    stagehand = AsyncStagehand(llm=replayer, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables={**VARIABLES, "email": other_email})
    assert result.success and result.cache == "hit"
    assert replayer.calls == 0 and result.llm_calls == 0
    assert other_email in await page.locator("#result").inner_text()
    assert stagehand.cache is not None and stagehand.cache.stats.hits == 1


async def test_a_changed_page_heals_and_rewrites_the_entry(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    before = json.loads(entry_file.read_text("utf-8"))

    healer = AsyncPlanLLM(FORM_STEPS[2:])  # the model only needs to redo what broke
    stagehand = AsyncStagehand(llm=healer, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    # A redesign renamed the password field: its cached selectors and fingerprint fail.
    await page.evaluate(
        """() => {
            const old = document.querySelector('input[type=password]');
            const box = document.createElement('div');
            const field = old.cloneNode();
            field.id = 'secret-v2'; field.name = 'secret_v2';
            field.setAttribute('placeholder', 'Your password');
            box.append(field); old.replaceWith(box);
            const label = document.querySelector('label[for="' + old.id + '"]');
            if (label) label.htmlFor = 'secret-v2';
        }"""
    )
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.success, result.message
    assert result.cache == "healed" and result.healed
    assert "healed" in result.message.lower()
    assert healer.calls >= 1
    after = json.loads(entry_file.read_text("utf-8"))
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] != before["updated_at"]
    assert any("secret" in s for s in after["actions"][2]["selectors"])
    assert stagehand.cache is not None and stagehand.cache.stats.healed == 1


@pytest.mark.no_sync_twin
async def test_failed_acts_never_write(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand = AsyncStagehand(llm=AsyncPlanLLM([Step("click", "not there")]), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "form.html")
    with pytest.raises(ActError):
        await page.act("press the launch button")
    assert list(tmp_path.iterdir()) == []


async def test_a_replay_that_cannot_heal_removes_its_entry(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    stagehand = AsyncStagehand(llm=AsyncPlanLLM([Step("click", "nothing")]), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    await page.evaluate("() => document.querySelector('form').remove()")
    with pytest.raises(ActError) as caught:
        await page.act(INSTRUCTION, variables=VARIABLES)
    assert "stale cache entry removed" in caught.value.result.message
    assert list(tmp_path.glob("*.json")) == []


@pytest.mark.no_sync_twin
async def test_no_variable_value_is_ever_written_to_the_cache(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await _first_run(async_page, pages_url + "form.html", tmp_path)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in secret_values.ALL:
                assert secret.encode() not in data, path


@pytest.mark.no_sync_twin
async def test_a_hit_needs_no_model_configured_at_all(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    for name in ("STAGEHAND_PY_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    page = AsyncStagehand(cache_dir=tmp_path).wrap(async_page)  # CI without a key
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "hit" and result.llm_calls == 0


# ---------------------------------------------------------------- cache modes (#15 item 2)


@pytest.mark.no_sync_twin
async def test_require_mode_never_calls_the_model(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    silent = AsyncPlanLLM([])  # any model call would show in .calls
    stagehand = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "form.html")
    with pytest.raises(CacheMissError) as missed:
        await page.act(INSTRUCTION, variables=VARIABLES)
    error = missed.value
    assert error.reason == "miss" and error.instruction == INSTRUCTION and len(error.key) == 64
    assert error.key[:12] in str(error) and INSTRUCTION in str(error)
    with pytest.raises(CacheMissError):
        await page.observe("the submit button")
    heading = {"type": "object", "properties": {"heading": {"type": "string"}}}
    with pytest.raises(CacheMissError, match="extract"):
        await page.extract("the page heading", schema=heading)  # no compiled entry stored
    assert silent.calls == 0 and list(tmp_path.iterdir()) == []

    await _first_run(async_page, pages_url + "form.html", tmp_path)  # record it once
    await page.goto(pages_url + "form.html")
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "hit" and silent.calls == 0


@pytest.mark.no_sync_twin
async def test_require_mode_refuses_agent_and_workflow_before_any_model_call(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    never = AsyncFunctionLLM()  # no functions: any request is an error, and is counted
    stagehand = AsyncStagehand(llm=never, cache_dir=tmp_path, cache_mode="require")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "form.html")
    variables = {"email": secret_values.EMAIL}
    task = f"sign up as {secret_values.EMAIL}"  # a value in the text is redacted in the error
    with pytest.raises(CacheMissError) as agent_missed:
        await page.agent(task, variables=variables, max_steps=2)
    with pytest.raises(CacheMissError) as workflow_missed:
        await page.workflow(task, variables=variables, history_dir=tmp_path / "history")
    assert never.calls == 0
    for kind, error in (("agent", agent_missed.value), ("workflow", workflow_missed.value)):
        message = str(error)
        assert message.startswith(f"{kind}('sign up as <|EMAIL|>') on /form.html: the action")
        assert "no entry is stored for it. No model was called" in message
        assert "cache_mode='read-write'" in message  # what to do
        assert error.reason == "miss" and error.instruction == "sign up as <|EMAIL|>"
    recorded = [(r.kind, r.success, r.llm_calls) for r in stagehand.history]
    assert recorded == [("agent", False, 0), ("workflow", False, 0)]
    assert all("CacheMissError" in r.message for r in stagehand.history)
    assert secret_values.EMAIL not in repr(stagehand.history)
    assert await page.locator("input").first.input_value() == ""  # nothing was done


@pytest.mark.parametrize("limits", [{"cache_mode": "require"}, {"self_heal": False}])
@pytest.mark.no_sync_twin
async def test_a_stale_step_is_a_cache_miss_error_when_healing_is_off(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, limits: dict[str, object]
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    stored = entry_file.read_bytes()
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path).wrap(async_page)
    await page.goto(url)
    await page.evaluate("() => document.querySelector('#password').remove()")
    with pytest.raises(CacheMissError) as missed:
        await page.act(INSTRUCTION, variables=VARIABLES, **limits)
    assert missed.value.reason == "stale" and "step" in str(missed.value)
    assert silent.calls == 0
    assert entry_file.read_bytes() == stored  # kept as it was: nothing healed or removed


async def test_read_only_mode_replays_and_heals_but_never_writes(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    model = AsyncPlanLLM(FORM_STEPS)
    page = AsyncStagehand(llm=model, cache_dir=tmp_path, cache_mode="read-only").wrap(async_page)
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.success and result.cache == "miss" and model.calls > 0
    assert list(tmp_path.iterdir()) == []  # a miss that succeeded is not written

    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    stored = entry_file.read_bytes()
    await page.goto(url)
    hit = await page.act(INSTRUCTION, variables=VARIABLES)
    assert hit.cache == "hit" and hit.llm_calls == 0
    healer = AsyncPlanLLM(FORM_STEPS[3:])
    page = AsyncStagehand(llm=healer, cache_dir=tmp_path, cache_mode="read-only").wrap(async_page)
    await page.goto(url)
    await page.evaluate("() => { document.querySelector('#submit').id = 'send-v2'; }")
    await page.evaluate("() => { document.querySelector('#send-v2').textContent = 'Submit!'; }")
    healed = await page.act(INSTRUCTION, variables=VARIABLES)
    assert healed.cache == "healed" and healer.calls >= 1
    assert entry_file.read_bytes() == stored  # healed in memory only


@pytest.mark.no_sync_twin
async def test_a_heal_keeps_the_previous_version(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    before = json.loads(entry_file.read_text("utf-8"))
    stagehand = AsyncStagehand(llm=AsyncPlanLLM(FORM_STEPS[3:]), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    await page.evaluate("() => { document.querySelector('#submit').id = 'send-v2'; }")
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "healed"
    after = json.loads(entry_file.read_text("utf-8"))
    assert after["previous"]["actions"] == before["actions"]
    assert after["previous"]["updated_at"] == before["updated_at"]
    assert "step" in after["previous"]["reason"]
    assert stagehand.cache is not None
    diff = entry_diff(stagehand.cache.find(after["key"]))
    assert '-   selector: xpath=//*[@id="submit"]' in diff
    assert '+   selector: xpath=//*[@id="send-v2"]' in diff

    # The command line shows the same diff, as text and as JSON.
    show = ["cache", "show", after["key"][:10], "--cache-dir", str(tmp_path), "--diff"]
    capsys.readouterr()
    assert main(show) == 0
    text = capsys.readouterr().out
    assert text.startswith("healed because: ") and "--- previous (" in text
    assert '-   selector: xpath=//*[@id="submit"]' in text
    assert '+   selector: xpath=//*[@id="send-v2"]' in text
    assert main([*show, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON object, nothing else
    shown = json.loads(out)
    assert shown["ok"] is True and shown["command"] == "cache show"
    assert shown["diff"] == text.rstrip("\n")
    assert shown["entry"]["previous"]["actions"] == before["actions"]
    for secret in secret_values.ALL:
        assert secret not in text + out


# ---------------------------------------------------------------- planted entries (#13 item 6)

SIGN_IN_URL = "ci/signin.html"
SIGN_IN = "sign in with <|PASSWORD|>"


async def _plant(
    cache_dir: Path, url: str, selectors: list[str], fingerprint: dict[str, object] | None
) -> None:
    cache = ActionCache(cache_dir)
    key = cache.key_for(SIGN_IN, url, ["password"])
    step: dict[str, object] = {
        "method": "fill", "selectors": selectors, "arguments": ["<|PASSWORD|>"],
        "description": "type the password",
    }  # fmt: skip
    if fingerprint is not None:
        step["fingerprint"] = fingerprint
    entry = {"key": key.digest, "instruction": key.instruction, "url": key.url,
             "variable_names": ["PASSWORD"], "actions": [step]}  # fmt: skip
    cache_dir.mkdir(exist_ok=True)
    cache.path_for(key).write_text(json.dumps(entry), encoding="utf-8")


async def test_a_planted_entry_cannot_aim_a_variable_at_another_element(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + SIGN_IN_URL
    password_field = {"tag": "input", "role": "textbox", "name": "",
                      "attributes": {"name": "pw", "type": "password"}}  # fmt: skip
    # The entry claims the password field but its selector finds the site's search box.
    await _plant(tmp_path, url, ['xpath=//*[@id="site-search"]'], password_field)
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(url)
    with pytest.raises(CacheMissError) as missed:
        await page.act(SIGN_IN, variables={"password": secret_values.PASSWORD})
    assert missed.value.reason == "stale" and "a different element" in str(missed.value)
    assert await page.locator("#site-search").input_value() == ""  # nothing was typed
    assert silent.calls == 0


@pytest.mark.no_sync_twin
async def test_a_planted_entry_without_a_fingerprint_is_never_replayed(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + SIGN_IN_URL
    await _plant(tmp_path, url, ['xpath=//*[@id="site-search"]'], None)
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(url)
    with (
        pytest.warns(CacheWarning, match="types a variable but has no element fingerprint"),
        pytest.raises(CacheMissError) as missed,
    ):
        await page.act(SIGN_IN, variables={"password": secret_values.PASSWORD})
    assert missed.value.reason == "miss"  # refused on load: as if there were no entry
    assert await page.locator("#site-search").input_value() == ""
    # With a model allowed, the model is asked and the planted file replaced by a good entry.
    model = AsyncPlanLLM([Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"])])
    page = AsyncStagehand(llm=model, cache_dir=tmp_path).wrap(async_page)
    with pytest.warns(CacheWarning):
        result = await page.act(SIGN_IN, variables={"password": secret_values.PASSWORD})
    assert result.cache == "miss" and model.calls >= 1
    assert await page.locator("#site-search").input_value() == ""
    assert await page.locator("input[name=pw]").input_value() == secret_values.PASSWORD


@pytest.mark.no_sync_twin
async def test_a_planted_entry_with_the_targets_own_fingerprint_still_needs_a_fitting_field(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    # The message box's own selectors and fingerprint, from a real act that wrote to it.
    url = pages_url + "japanese.html"
    page = AsyncStagehand(
        llm=AsyncPlanLLM([Step("fill", r"^<textarea", ["Hello"])]), cache_dir=tmp_path
    ).wrap(async_page)
    await page.goto(url)
    assert (await page.act("write Hello in the message box")).success
    [written] = [json.loads(f.read_text("utf-8")) for f in tmp_path.glob("*.json")]
    box = written["actions"][0]
    # An entry for the e-mail instruction, planted with the box's step: the fingerprint holds.
    instruction = "type <|EMAIL|> into the e-mail field"
    cache = ActionCache(tmp_path)
    key = cache.key_for(instruction, url, ["email"])
    planted = [{**box, "arguments": ["<|EMAIL|>"]}]
    entry = {"key": key.digest, "instruction": key.instruction, "url": key.url,
             "variable_names": ["EMAIL"], "actions": planted}  # fmt: skip
    cache.path_for(key).write_text(json.dumps(entry), encoding="utf-8")

    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(url)
    with pytest.raises(CacheMissError) as missed:
        await page.act(instruction, variables={"email": secret_values.EMAIL})
    assert missed.value.reason == "stale" and "no proof" in str(missed.value)
    assert await page.locator("#jp-message").input_value() == ""  # nothing was typed
    assert silent.calls == 0


# ---------------------------------------------------------------- observe is cached too


async def test_observe_replays_from_the_cache_with_no_model_call(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    page = AsyncStagehand(llm=AsyncScriptedLLM()).wrap(async_page)
    await page.goto(url)
    snapshot = await page.snapshot()
    submit = next(e.index for e in snapshot.elements if e.tag == "button")
    found = observe_answer(observed(submit, "the Submit button"))
    model = AsyncScriptedLLM(found)
    stagehand = AsyncStagehand(llm=model, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    first = await page.observe("the submit button")
    assert [r.description for r in first] == ["the Submit button"] and model.calls == 1
    assert stagehand.history[-1].cache == "miss"

    await page.goto(url)
    again = await page.observe("the submit button")
    assert model.calls == 1 and stagehand.history[-1].cache == "hit"
    assert again[0].selectors == first[0].selectors
    await page.act(again[0])
    assert await page.locator("#result").get_attribute("data-submitted") == "true"


@pytest.mark.parametrize(
    ("page_name", "step", "variables", "done"),
    [
        (
            "loop/kanban.html",
            Step("drag_to", r"^<div\b[^>]*>CSV export", target=r"^<h2\b[^>]*>In progress"),
            {},
            "CSV export -> In progress",
        ),
        (
            "loop/upload.html",
            Step("set_input_files", r"^<input\b[^>]*type=\"file\"", ["<|DOCUMENT|>"]),
            {"document": __file__},
            "cv: test_cached_act.py",
        ),
    ],
)
async def test_drag_and_upload_steps_replay_with_zero_model_calls(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    page_name: str,
    step: Step,
    variables: dict[str, str],
    done: str,
) -> None:
    first = AsyncStagehand(llm=AsyncPlanLLM([step]), cache_dir=tmp_path)
    page = first.wrap(async_page)
    await page.goto(pages_url + page_name)
    assert (await page.act("do it", variables=variables)).cache == "miss"

    replay = AsyncStagehand(llm=AsyncPlanLLM([]), cache_dir=tmp_path, cache_mode="require")
    again = replay.wrap(async_page)
    await again.goto(pages_url + page_name)
    result = await again.act("do it", variables=variables)
    assert result.cache == "hit" and result.llm_calls == 0
    assert done in await again.locator("#moved, #files").first.inner_text()
    stored = next(tmp_path.glob("*.json")).read_text("utf-8")
    assert __file__ not in stored  # a file path comes from the variable, never the cache
