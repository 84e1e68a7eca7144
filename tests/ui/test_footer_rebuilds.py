"""The footer rebuilds its keys only when they would change: a refresh of the bindings that
leaves them as they were (a focus, a selection that moves) keeps the key widgets."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from pitui.ui.widgets.fitting_footer import FittingFooter
from pitui.ui.widgets.footer import Footer
from tests.ui.picker_kit import MINUTE, FakeCatalog, FakeItem, aged, fake_app, picker, settle

SIZE = (150, 40)


def keys(footer: Footer) -> dict[int, bool]:
    """id → disabled, of the key widgets shown."""
    return {id(key): key.has_class("-disabled") for key in footer.query(FooterKey)}


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    items = [FakeItem(f"/s/{n}.jsonl", str(n), f"message {n}", aged(MINUTE)) for n in range(3)]
    app = fake_app(FakeCatalog(scopes={"current": items}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        footer = screen.query_one(Footer)
        before = keys(footer)
        assert before
        for _ in range(3):
            screen.refresh_bindings()
            await pilot.pause()
        await pilot.press("down")
        await settle(pilot)
        assert keys(footer) == before  # the same widgets
        screen.search.value = "nothing matches this"  # no selection: some keys are disabled
        await settle(pilot)
        after = keys(footer)
        assert set(after).isdisjoint(before)
        assert sum(after.values()) > sum(before.values())


async def test_a_recompose_due_when_the_footer_has_left_its_screen_does_nothing() -> None:
    # (the session view's footer: the view closed with a recompose of the bindings still due)
    footer = FittingFooter()
    footer.set_reactive(Footer._bindings_ready, True)
    await footer.recompose()
    assert not footer.children
