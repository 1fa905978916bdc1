"""The app's overrides upload (workbook.present.app.uploads): a good file changes the catalog and
the recommendation and is listed; a bad one shows one message next to the upload and changes
nothing else; Clear goes back to the shipped data (issue 14, part 5)."""

import pytest

from workbook.present.app.page import WorkbookApp
from workbook.present.app.uploads import uploaded_file

PRESET = "small-team-instruction-tuning"
GOOD = (
    b"\xef\xbb\xbftable,key,column,value,source,notes\r\n"  # Excel "CSV UTF-8": BOM and CRLF
    b"prices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.2,our Q4 quote,\r\n"
)


@pytest.fixture()
def app():
    return WorkbookApp(PRESET)


def test_upload_applies_the_overrides_and_lists_them_with_the_derived_prices(app):
    assert "No overrides" in app.overrides.active.value
    assert app.overrides.load("quotes.csv", GOOD)
    assert app.catalog.price("h100-sxm", "rent-on-demand") == 1.2
    assert app.rec.catalog is app.catalog  # the recommendation was recomputed with them
    active = app.overrides.active.value
    assert "Active overrides (1)" in active and "=1.2 (source: our Q4 quote)" in active
    assert "h100-sxm rent-reserved-1y 1.74 -&gt; 0.708" in active
    assert "overrides: prices:h100-sxm:rent-on-demand" in app.assumptions.value
    assert app.overrides.error.value == ""


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"table,key,column\nprices,x,y\n", "the header lacks value"),
        (b"table,key,column,value\nprices,h100-sxm:rent-on-demand\n", "line 2: has 2 cells"),
        (
            b"table,key,column,value\n"
            b"prices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.2\n"
            b"prices,h100-sxm:rent-on-demand,price_usd_per_gpu_hour,1.3\n",
            "overridden twice",
        ),
        (b"table,key,column,value\nprices,nope:rent-spot,price_usd_per_gpu_hour,1\n", "nope"),
        (b"\xff\xfe\x00binary", "is not UTF-8 text"),
        (b"table,key,column,value\n" + b"x" * 1_100_000, "allowed: at most 1,000,000"),
    ],
)
def test_a_bad_file_shows_one_message_and_changes_nothing_else(app, content, says):
    before_cat, before_headline = app.catalog, app.headline.value
    assert not app.overrides.load("bad.csv", content)
    assert says in app.overrides.error.value.replace("&#x27;", "'")
    assert app.overrides.error.value.startswith(
        ("Overrides not applied: bad.csv", "Overrides not applied: override prices:nope")
    )
    assert len(app.overrides.error.value) < 600
    assert app.catalog is before_cat and app.headline.value == before_headline
    assert "No overrides" in app.overrides.active.value


def test_clear_goes_back_to_the_shipped_data(app):
    app.overrides.load("quotes.csv", GOOD)
    app.overrides.clear_button.click()
    assert app.catalog.overrides == [] and app.catalog.price("h100-sxm", "rent-on-demand") == 2.95
    assert "No overrides" in app.overrides.active.value


def test_the_file_widget_feeds_the_panel(app):
    assert uploaded_file(()) is None
    app.overrides.upload.set_state(
        {"value": [{"name": "q.csv", "type": "text/csv", "size": len(GOOD), "content": GOOD,
                    "last_modified": 0}]}
    )  # fmt: skip
    assert app.catalog.price("h100-sxm", "rent-on-demand") == 1.2


def test_the_app_notebook_parameter_opens_with_an_overrides_file(tmp_path):
    f = tmp_path / "quotes.csv"
    f.write_bytes(GOOD)
    app = WorkbookApp(PRESET, overrides=str(f))
    assert "Active overrides (1)" in app.overrides.active.value
