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
    people_frame,
    people_table,
    pick_columns,
    plain_number,
    readable,
    usd,
    usd_short,
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


def test_a_dollar_amount_written_as_text_is_a_number_cell():
    """The bill's amounts are text (usd_short): as number cells they are never broken inside on a
    phone (the app's td.num is nowrap; a 400 px bill wrapped "$55.6" / "M") and right-aligned in
    the memo; text with a dollar in it is still text."""
    for amount in ("$55.6M", "$366,048", "-$2.6M", "$1.2B", "$12"):
        assert cell("First year", amount) == f'<td class="num">{amount}</td>'
    assert cell("Kind", "opex a year") == "<td>opex a year</td>"
    assert cell("What", "$5 a GPU-hour") == "<td>$5 a GPU-hour</td>"
    bill = pd.DataFrame({"What": ["GPU rent", "Total"], "First year": ["$55.6M", ""]})
    assert '<th>What</th><th class="num">First year</th>' in html_table(bill)


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


def test_dollars_in_short_and_plain_numbers_never_in_scientific_notation():
    assert (
        usd_short(3e6) == "$3.00M"
        and usd_short(1.254e9) == "$1.25B"
        and usd_short(-4.5e6) == "-$4.50M"
    )
    assert usd_short(19602.4) == "$19,602"
    assert plain_number(2e-05) == "0.00002" and plain_number(0.0826) == "0.0826"
    assert plain_number(16384.0) == "16,384" and plain_number(7e10) == "70,000,000,000"
    assert readable("needs 2.10e+24 FLOP at 3e-05 per h100e5x") == (
        "needs 2.1 × 10²⁴ FLOP at 3 × 10⁻⁵ per h100e5x"
    )


def test_local_files_are_cited_by_what_they_are_not_by_path():
    """The article is cited by its title, the compiled reference by its name (issue 17)."""
    html_ = links(
        "../shared/seed/000_e6c314b433b91124.txt ('throttled to 65%') | "
        "seed article: The Best GPU Architecture for Training Large Models in 2026 (SIVARO) | "
        "https://example.org/a"
    )
    assert "../" not in html_ and "000_e6c" not in html_
    assert html_.count("The Best GPU Architecture") == 1  # the same article, cited once
    assert "N. Dixit (SIVARO)" in html_ and '<a href="https://example.org/a">' in html_
    ref = links("reference: /work/shared/reference/accelerators_sourced.csv+.md")
    assert "/work/" not in ref and "compiled accelerator reference" in ref


def test_identifier_cells_may_break_anywhere_when_printed():
    assert cell("parameter", "memory_traffic_bytes") == '<td class="id">memory_traffic_bytes</td>'
    assert cell("assumption", "Rental prices") == "<td>Rental prices</td>"


def test_people_tables_have_no_scientific_notation_and_ignore_mathjax():
    """Notebook 02 printed 7.000000e+10 (issue 17); its tables now read 70B, $1,001,950, 37.8%."""
    df = pd.DataFrame(
        {
            "n_params": [7e10],
            "n_tokens": [1e12],
            "capex_usd": [1001950.4],
            "mfu": [0.377788],
            "wall_days": [95.928],
            "gpu_hours": [762700.7],
            "step_s": [0.021457],
            "fits_in_memory": [True],
            "flops_total": [2.1e24],
        }
    )
    row = people_frame(df).iloc[0].to_dict()
    assert row == {
        "n_params": "70B",
        "n_tokens": "1T",
        "capex_usd": "$1,001,950",
        "mfu": "37.8%",
        "wall_days": "95.9",
        "gpu_hours": "762,701",
        "step_s": "0.02146",
        "fits_in_memory": "yes",
        "flops_total": "2.1 × 10²⁴",
    }
    html_ = people_table(df)._repr_html_()
    assert 'class="dataframe mathjax_ignore tex2jax_ignore"' in html_ and "e+" not in html_


def test_a_price_per_million_tokens_keeps_its_cents():
    """usd_per_million_tokens ends in "tokens" and was written as a count (notebook 06 showed
    0.0292758); it reads as dollars to three figures ($0.0293, $0.107, $2.86); a large one as
    other costs ($3.00M)."""
    df = pd.DataFrame({"usd_per_million_tokens": [0.0292758, 0.106916, 2.8591, 3e6]})
    assert list(people_frame(df)["usd_per_million_tokens"]) == [
        "$0.0293", "$0.107", "$2.86", "$3.00M",
    ]  # fmt: skip


def test_a_share_of_the_draws_is_never_written_0_or_100_percent_unless_it_is():
    """The memo's Monte Carlo table printed 0% for an option that won 2 of 1,000 draws beside a
    pick at 100% that won 998 (modest-budget); both now read as what they are."""
    from workbook.present.format import share_text

    got = [share_text(x) for x in (0.0, 0.002, 0.005, 0.009, 0.01, 0.54, 0.99, 0.998, 1.0)]
    assert got == ["0%", "0.2%", "0.5%", "0.9%", "1%", "54%", "99%", "over 99%", "100%"]
    page = html_table(pd.DataFrame({"option": ["a", "b"], "share": [0.998, 0.002]}))
    assert ">over 99%<" in page and ">0.2%<" in page
