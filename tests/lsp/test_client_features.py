"""`ClientFeatures.from_capabilities` on its own (no server): what the capability sets the
end-to-end tests start editors with resolve to, and that the harness's builder and the
server's resolution agree on every feature name."""

from __future__ import annotations

import dataclasses

import pytest
from lsprotocol import types
from support.lsp_harness import FEATURES, capabilities

from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.positions import Encoding


def test_a_client_that_says_nothing_gets_the_safe_defaults() -> None:
    features = ClientFeatures.from_capabilities(types.ClientCapabilities())
    assert features == ClientFeatures()
    assert features.encoding is Encoding.UTF16 and not features.apply_edit
    assert not features.pull_diagnostics and features.folding_range_limit is None


def test_neovim_0_11() -> None:
    assert ClientFeatures.from_capabilities(capabilities("neovim")) == ClientFeatures(
        encoding=Encoding.UTF8,
        pull_diagnostics=True,
        inlay_hint_refresh=True,
        apply_edit=True,
        configuration=True,
        work_done_progress=True,
        hierarchical_symbols=True,
        folding_collapsed_text=True,
    )


def test_modern_vscode() -> None:
    assert ClientFeatures.from_capabilities(capabilities("vscode")) == ClientFeatures(
        pull_diagnostics=True,
        diagnostic_refresh=True,
        inlay_hint_refresh=True,
        code_lens_refresh=True,
        apply_edit=True,
        configuration=True,
        file_watcher_registration=True,
        work_done_progress=True,
        hierarchical_symbols=True,
        symbol_tags=True,
        folding_range_limit=5000,
    )


def test_vscode_1_65_pushes_and_refreshes_only_code_lenses() -> None:
    features = ClientFeatures.from_capabilities(capabilities("vscode-1.65"))
    assert not features.pull_diagnostics and not features.inlay_hint_refresh
    assert features.code_lens_refresh and features.encoding is Encoding.UTF16


def test_the_first_offered_encoding_pygls_knows_is_used() -> None:
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-7", "utf-32", "utf-8"])
    )
    assert ClientFeatures.from_capabilities(caps).encoding is Encoding.UTF32
    vscode_utf8 = ClientFeatures.from_capabilities(capabilities("vscode", encoding="utf-8"))
    assert vscode_utf8.encoding is Encoding.UTF8


@pytest.mark.parametrize("like", ["neovim", "vscode", "vscode-1.65"])
@pytest.mark.parametrize("name", sorted(FEATURES))
@pytest.mark.parametrize("on", [True, False])
def test_each_feature_turned_on_or_off_changes_only_that_field(
    like: str, name: str, on: bool
) -> None:
    before = dataclasses.asdict(ClientFeatures.from_capabilities(capabilities(like)))
    after = dataclasses.asdict(ClientFeatures.from_capabilities(capabilities(like, **{name: on})))
    assert after[name] is on
    assert {k: v for k, v in after.items() if k != name} == {
        k: v for k, v in before.items() if k != name
    }


def test_every_boolean_feature_can_be_set_by_the_builder() -> None:
    booleans = {f.name for f in dataclasses.fields(ClientFeatures) if f.type == "bool"}
    assert set(FEATURES) == booleans


def test_a_misspelt_feature_fails_instead_of_testing_the_default() -> None:
    with pytest.raises(TypeError, match="apply_edits"):
        capabilities("vscode", apply_edits=False)
