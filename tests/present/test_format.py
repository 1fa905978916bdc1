"""Numbers and tables for people (workbook.present.format): the one HTML table of the memo and the
app."""

import base64
import math

import pandas as pd

from workbook.present.format import (
    cell,
    download_link,
    escape,
    html_table,
    links,
    number,
    pick_columns,
    usd,
)


def test_numbers_dollars_and_what_is_not_a_number():
    assert number(1234.5, 1) == "1,234.5" and number(math.nan) == "n/a"
    assert number(math.inf) == "∞" and number("<b>") == "&lt;b&gt;"
    assert usd(123456.7) == "$123,457" and usd(-5) == "-$5" and usd(math.nan) == "n/a"


def test_cells_format_by_column_and_escape_text():
    assert cell("wall_days", 12.34) == '<td class="num">12.3</td>'
    assert cell("share", 0.25) == '<td class="num">25%</td>'
    assert cell("x", 1234.0) == '<td class="num">1,234</td>'
    assert cell("x", 0.0123) == '<td class="num">0.0123</td>'
    assert cell("x", True) == "<td>yes</td>" and cell("x", None) == "<td></td>"
    assert cell("x", ["a", "b<"]) == "<td>a; b&lt;</td>"
    assert cell("x", "<a>", raw=True) == "<td><a></td>"


def test_table_titles_numbers_and_raw_columns():
    df = pd.DataFrame(
        {"cost_per_run_usd": [1e6], "accelerator": ["h100<"], "source": ['<a href="u">u</a>']}
    )
    page = html_table(df, raw=["source"])
    assert '<th class="num">cost per run</th>' in page and "<th>accelerator</th>" in page
    assert "$1,000,000" in page and "h100&lt;" in page and '<a href="u">u</a>' in page


def test_links_escape_text_and_link_urls():
    out = links("https://arxiv.org/abs/1 (table 2) | data/runs.csv <x>")
    assert out == (
        '<a href="https://arxiv.org/abs/1">https://arxiv.org/abs/1</a> (table 2)<br>'
        "data/runs.csv &lt;x&gt;"
    )
    assert links(math.nan) == "" and links(None) == ""


def test_pick_columns_keeps_the_order_asked_for():
    df = pd.DataFrame({"a": [1], "b": [2], "c": [3]}, index=[7])
    assert list(pick_columns(df, ["c", "zz", "a"]).columns) == ["c", "a"]
    assert list(pick_columns(df, ["zz"]).index) == [0]


def test_download_link_holds_the_data():
    link = download_link(b"a,b\n", "x.csv", "text/csv", "the table")
    assert base64.b64encode(b"a,b\n").decode() in link and "download='x.csv'" in link
    assert escape("'") == "&#x27;"
