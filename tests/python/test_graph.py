"""tunekit.tune() and tunekit.lookup_override(): what `tunekit tune` and
`tunekit overrides lookup` do, from Python."""
import json
import pathlib

import pytest

import tunekit

GRAPHS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "graphs"


def test_tune_writes_the_winner_and_returns_the_ranked_table(tmp_path):
    output = tmp_path / "overrides.json"
    seen = []
    result = tunekit.tune([GRAPHS / "layernorm.toml"], output=output, shape_sets=["base"],
                          progress=lambda shape: seen.append((shape.shape_set, shape.winner.engine_name)))
    assert result.exit_code == 0
    assert len(result.shapes) == 1
    shape = result.shapes[0]
    assert shape.shape_set == "base" and seen == [("base", shape.winner.engine_name)]
    ranks = [c.rank for c in shape.candidates if c.succeeded]
    assert ranks == sorted(ranks) and ranks[0] == 0 and len(ranks) >= 2
    assert all(len(c.samples_ms) >= 1 for c in shape.candidates if c.succeeded)
    assert shape.winner.engine_name in shape.table()

    stored = json.loads(output.read_text())["engine_overrides"]
    assert [entry["engine_name"] for entry in stored] == [shape.winner.engine_name]

    # The selection policy finds that entry for the same shape, and nothing for another.
    entry = stored[0]
    tensors = {t["tensor_id"]: t["dim"] for t in entry["tensors"]}
    match = tunekit.lookup_override([output], op=entry["op"], tensors=tensors, criteria=entry.get("criteria", {}))
    assert match.matched and match.exact, match.to_dict()
    assert match.engine_name == shape.winner.engine_name
    assert match.entry_index == 0
    other = {name: [d * 2 for d in dims] for name, dims in tensors.items()}
    missed = tunekit.lookup_override([output], op=entry["op"], tensors=other, criteria=entry.get("criteria", {}))
    assert not missed.matched and missed.misses


def test_bad_input_raises_naming_it(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[[tensors]]\nname = \n")
    with pytest.raises(tunekit.Error, match="broken.toml"):
        tunekit.tune([broken], output=tmp_path / "o.json")
    with pytest.raises(tunekit.Error, match="exclude each other"):
        tunekit.tune([GRAPHS / "layernorm.toml"], output=tmp_path / "o.json", replace=True, keep_unless_faster=True)
    with pytest.raises(tunekit.Error, match="strategy"):
        tunekit.tune([GRAPHS / "layernorm.toml"], output=tmp_path / "o.json", strategy="fastest")
    missing = tunekit.lookup_override([tmp_path / "none.json"], op="matmul", tensors={"A": [2, 2]})
    assert not missing.matched


def test_the_report_page_from_python(tmp_path):
    output = tmp_path / "overrides.json"
    result = tunekit.tune([GRAPHS / "layernorm.toml"], output=output, shape_sets=["base"])
    tables = tmp_path / "tuned.json"
    tables.write_text(json.dumps(result.to_dict()["shapes"]))
    page = tmp_path / "report.html"
    model = tunekit.report([tables, output], output=page, title="from Python")
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<title>from Python</title>" in html
    assert [s.shape_set for s in model.shapes] == ["base"]
    assert len(model.overrides) == 1
    chart = model.charts[model.shapes[0].chart]
    assert chart.kind == "bars" and chart.expected_points == 3 * len(chart.rows)
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("[not a report\n")
    with pytest.raises(tunekit.Error, match="garbage.txt"):
        tunekit.report([garbage], output=tmp_path / "no.html")


def test_tune_on_a_device_this_machine_lacks_raises_with_the_reason(tmp_path):
    gpus = tunekit.describe().to_dict()["hip"]
    if gpus["devices"]:
        pytest.skip("this machine has a GPU: the no-device path is not taken")
    with pytest.raises(tunekit.Error, match="--device hip: " + gpus["reason"]):
        tunekit.tune([GRAPHS / "layernorm.toml"], output=tmp_path / "o.json", device="hip")
    assert not (tmp_path / "o.json").exists()
    with pytest.raises(tunekit.Error, match="unknown device 'gpu'"):
        tunekit.tune([GRAPHS / "layernorm.toml"], output=tmp_path / "o.json", device="gpu")
