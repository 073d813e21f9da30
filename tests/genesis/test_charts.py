"""genesis.charts: inline SVG line and bar charts."""
import xml.etree.ElementTree as ET

from genesis.charts import _nice_ticks, bar_chart, line_chart

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on malformed XML or unescaped text
    assert root.tag == f"{SVG}svg"
    return root


def _texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(f"{SVG}text") if t.text]


def _series_groups(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("data-series"): g for g in root.iter(f"{SVG}g") if g.get("class") == "series"}


def test_line_chart_draws_one_polyline_per_series_with_labels():
    svg = line_chart({"Playability": [0.4, 0.6, 0.8], "Baseline": [0.5, 0.5, 0.5]},
                     ["batch 1", "batch 2", "batch 3"], "Playability per batch", "fraction playable")
    root = _parse(svg)
    groups = _series_groups(root)
    assert set(groups) == {"Playability", "Baseline"}
    for g in groups.values():
        polylines = list(g.iter(f"{SVG}polyline"))
        assert len(polylines) == 1
        assert len(polylines[0].get("points").split()) == 3
    texts = _texts(root)
    for expected in ("Playability per batch", "fraction playable", "batch 1", "batch 3", "Playability", "Baseline"):
        assert expected in texts


def test_line_chart_higher_values_are_drawn_higher():
    root = _parse(line_chart({"s": [1.0, 3.0]}, ["a", "b"], "t", "y"))
    (polyline,) = root.iter(f"{SVG}polyline")
    (x1, y1), (x2, y2) = (tuple(map(float, p.split(","))) for p in polyline.get("points").split())
    assert x2 > x1 and y2 < y1  # SVG y grows downwards


def test_line_chart_none_values_leave_gaps():
    root = _parse(line_chart({"time": [10.0, 12.0, None, 9.0, 8.0, None]}, list("abcdef"), "t", "s"))
    polylines = list(_series_groups(root)["time"].iter(f"{SVG}polyline"))
    assert [len(p.get("points").split()) for p in polylines] == [2, 2]
    assert len(list(root.iter(f"{SVG}circle"))) == 4


def test_line_chart_escapes_text_and_handles_no_data():
    svg = line_chart({"<a&b>": [None, None]}, ["x<1", "y&2"], 'Title "<script>"', "y & z")
    root = _parse(svg)
    assert "<script>" not in svg
    texts = _texts(root)
    assert 'Title "<script>"' in texts and "x<1" in texts and "no data yet" in texts
    assert not list(root.iter(f"{SVG}polyline"))


def test_line_chart_has_no_script_or_external_reference():
    svg = line_chart({"a": [1, 2]}, ["1", "2"], "t", "y")
    assert "<script" not in svg and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_bar_chart_one_bar_per_value_with_labels():
    root = _parse(bar_chart({"TCP": 0.5, "MFD": 1.0, "FS-F": 0.0}, "Playability by scenario", "fraction"))
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "bar"]
    assert len(bars) == 3
    heights = [float(b.get("height")) for b in bars]
    assert heights[1] > heights[0] > heights[2] == 0
    texts = _texts(root)
    assert {"TCP", "MFD", "FS-F", "Playability by scenario", "fraction"} <= set(texts)


def test_nice_ticks_cover_the_range():
    for lo, hi in ((0, 0.65), (0, 1), (0, 37.2), (-3, 8), (0, 0)):
        ticks = _nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= max(hi, lo + 1e-12) - 1e-9
        assert ticks == sorted(ticks)
