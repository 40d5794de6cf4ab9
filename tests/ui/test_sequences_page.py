"""The Sequences list, the home page, with NiceGUI's simulated user and the real in-memory engine."""

from __future__ import annotations

import json

from nicegui import ui
from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User
from support.ui import app_ctx

from gui.core.sequences.export import to_text
from gui.core.sequences.help import EXAMPLE, SEED_EXAMPLE

R = 50


async def saved_example() -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))


async def upload(user: User, content: bytes, name: str = "sequence.json") -> None:
    element = next(iter(user.find(marker="import-upload").elements))
    assert isinstance(element, ui.upload)
    with user.client:
        await element.handle_uploads([SmallFileUpload(name=name, content_type="application/json", _data=content)])


async def test_empty_list_explains_what_a_sequence_is(user: User) -> None:
    await user.open("/")
    await user.should_see("No sequences yet", retries=R)
    await user.should_see("A sequence is a list of groups that run one after another", retries=R)


async def test_each_sequence_shows_its_signature_with_types_in_words(user: User) -> None:
    await saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    with user.scope(marker="sequence-check-three-nodes"):
        await user.should_see("host · text")
        await user.should_see("summary · text")
        await user.should_see("detail · text")
        await user.should_see("2 groups")


async def test_search_keeps_only_matching_sequences(user: User) -> None:
    await saved_example()
    await app_ctx().engine.create(json.loads(SEED_EXAMPLE))
    await user.open("/")
    await user.should_see("巡检三节点", retries=R)
    user.find(marker="search").type("dig")
    await user.should_not_see("巡检三节点", retries=R)
    await user.should_see("check-three-nodes")


async def test_importing_a_valid_file_saves_it(user: User) -> None:
    await user.open("/")
    await user.should_see("No sequences yet", retries=R)
    await upload(user, EXAMPLE.encode())
    await user.should_see("Imported 'check-three-nodes'", retries=R)
    assert await app_ctx().engine.get("check-three-nodes") is not None


async def test_importing_an_invalid_file_lists_its_errors_with_their_line(user: User) -> None:
    broken = EXAMPLE.replace('\\"as\\":\\"detail\\"} ;', '\\"as\\":\\"detail\\"}')
    await user.open("/")
    await upload(user, broken.encode())
    await user.should_see(marker="import-problems", retries=R)
    await user.should_see("line 1, column", retries=R)
    await user.should_see("the last tool object is not followed by ';'", retries=R)
    assert await app_ctx().engine.list_sequences() == []


async def test_importing_a_file_with_a_missing_argument_says_which_in_words(user: User) -> None:
    doc = {"name": "d", "groups": [{"name": "greet", "tools": '{"tool":"echo","args":{}} ;'}]}
    await user.open("/")
    await upload(user, json.dumps(doc).encode())
    await user.should_see(marker="import-problems", retries=R)
    await user.should_see("in group 'greet', tool 1 (echo): the argument 'value' is missing", retries=R)
    await user.should_not_see("Field required")


async def test_a_file_that_stops_too_early_is_placed_once_where_it_stops(user: User) -> None:
    cut = '{"name": "demo", "groups": [{"name": "g"'
    await user.open("/")
    await upload(user, cut.encode())
    await user.should_see(marker="import-problems", retries=R)
    await user.should_see("line 1, column 41:", retries=R)
    message = next(iter(user.find(marker="import-problem-message").elements)).text
    assert message == "the document is not valid JSON: Expecting ',' delimiter", message


async def test_importing_a_file_over_the_size_limit_says_the_limit_and_reads_nothing(user: User) -> None:
    doc = {**json.loads(EXAMPLE), "description": "x" * 3_000_000}
    await user.open("/")
    await upload(user, json.dumps(doc).encode())
    await user.should_see(marker="import-problems", retries=R)
    await user.should_see("the sequence is 2.9 MB of JSON, more than the 2 MB one sequence may be", retries=R)
    assert await app_ctx().engine.list_sequences() == []


async def test_an_invalid_import_opens_in_the_text_view_to_fix(user: User) -> None:
    await user.open("/")
    await upload(user, b'{"name": "x", "groups": "nope"}')
    await user.should_see(marker="fix-import", retries=R)
    user.find(marker="fix-import").click()
    await user.should_see(marker="text-view", retries=R)
    editor = next(iter(user.find(marker="text-view").elements))
    assert editor.value == '{"name": "x", "groups": "nope"}'


async def test_importing_over_an_existing_name_asks_first(user: User) -> None:
    await saved_example()
    await user.open("/")
    changed = json.loads(EXAMPLE)
    changed["description"] = "replaced"
    await upload(user, json.dumps(changed).encode())
    await user.should_see(marker="replace-dialog", retries=R)
    user.find(marker="confirm-replace").click()
    await user.should_see("Imported 'check-three-nodes'", retries=R)
    stored = await app_ctx().engine.get("check-three-nodes")
    assert stored is not None and stored.description == "replaced"


async def test_export_downloads_the_seed_text(user: User) -> None:
    await saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="export").click()
    response = await user.download.next()
    stored = await app_ctx().engine.get("check-three-nodes")
    assert stored is not None
    assert response.content.decode() == to_text(stored)


async def test_delete_asks_for_confirmation_and_keep_it_keeps_it(user: User) -> None:
    await saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="delete").click()
    await user.should_see(marker="delete-dialog", retries=R)
    user.find(marker="cancel-delete").click()
    assert await app_ctx().engine.get("check-three-nodes") is not None
    user.find(marker="delete").click()
    user.find(marker="confirm-delete").click()
    await user.should_see("Deleted 'check-three-nodes'", retries=R)
    assert await app_ctx().engine.get("check-three-nodes") is None
    await user.should_see("No sequences yet", retries=R)


async def test_duplicate_saves_a_copy_with_new_group_names(user: User) -> None:
    await saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="duplicate").click()
    await user.should_see("Copied as 'check-three-nodes-2'", retries=R)
    await user.should_see("'fetch-one-node-2', 'dig-deeper-2'", retries=R)
    copy = await app_ctx().engine.get("check-three-nodes-2")
    assert copy is not None
    assert [g.name for g in copy.groups] == ["fetch-one-node-2", "dig-deeper-2"]


async def test_run_and_edit_open_their_pages(user: User) -> None:
    await saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="edit").click()
    await user.should_see(marker="group-1", retries=R)
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="run").click()
    await user.should_see("Run a sequence", retries=R)


async def test_the_list_follows_sequences_saved_elsewhere(user: User) -> None:
    await user.open("/")
    await user.should_see("No sequences yet", retries=R)
    await saved_example()  # as the CLI or an AI agent over MCP would
    await user.should_see("check-three-nodes", retries=R)
