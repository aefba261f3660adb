"""A stage has one colour: the report's plots/attribution.png draws each stage in the colour the run browser's
attribution chart gives it (they used two palettes, so "not_retrieved" was orange in one and another hue in the
other)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image as mpimg

from benchmarker.reporting.attribution_report import plot_attribution
from benchmarker.reporting.summary_analysis_blocks import AttributionBlock
from benchmarker.scoring.attribution import STAGES, attribution_block
from benchmarker.view.charts import attribution_chart


def png_colours(path: Path) -> set[str]:
    pixels = mpimg.imread(path)[..., :3].reshape(-1, 3)
    return {"#" + "".join(f"{round(255 * float(v)):02x}" for v in px) for px in pixels}


def test_the_png_and_the_browser_chart_draw_each_stage_in_one_colour(tmp_path):
    results = [{"question_id": f"q{i}", "question_type": "multi-hop"} for i in range(len(STAGES))]
    block = attribution_block(results, {f"q{i}": stage for i, stage in enumerate(STAGES)})   # one of each stage
    chart = attribution_chart(block)
    assert chart is not None
    browser = {segment.stage: segment.color for segment in chart.bars[0].segments}
    assert set(browser) == set(STAGES)
    drawn = png_colours(plot_attribution(AttributionBlock.model_validate(block), tmp_path / "attribution.png"))
    assert {stage: colour for stage, colour in browser.items() if colour not in drawn} == {}
