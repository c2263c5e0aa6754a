"""Map data and line of sight (rules §3)."""

from spyenvs.games.specter_ops import board as B

from .helpers import C


def test_s3_2_map_counts_and_escapes():
    assert B.popcount(B.OPEN) == 528
    assert B.popcount(B.ROAD) == 174
    assert B.popcount(B.STRUCT) == 208
    assert [B.name(c) for c in B.ESCAPES] == ["A3", "N1", "W3"]
    assert [B.name(c) for c in B.ESCAPE_EXTRA] == ["H1"]
    assert (B.ROAD >> C("N1")) & 1  # N1 is drawn E but is a road cell


def test_s3_5_sight_statistics_from_the_rules():
    assert B.popcount(B.SIGHT[C("K15")]) == 67
    assert B.popcount(B.SIGHT[C("K17")]) == 38
    assert B.popcount(B.SIGHT[C("K23")]) == 56


def test_s3_5_los_along_rows_and_columns_blocked_by_structures():
    q10 = B.SIGHT[C("Q10")]
    assert (q10 >> C("Q5")) & 1  # S8 example: agent Q5, hunter Q10 -> seen
    assert not (q10 >> C("R9")) & 1  # no diagonal vision
    # B10 looks east along row 10: C10 open, D10 is a structure, E10 hidden behind it
    b10 = B.SIGHT[C("B10")]
    assert (b10 >> C("C10")) & 1 and not (b10 >> C("E10")) & 1


def test_c3_road_vision_covers_the_other_lane_of_the_strip():
    k17 = B.SIGHT[C("K17")]  # on strip R5 (columns J-K, rows 15-32)
    assert (k17 >> C("J32")) & 1 and (k17 >> C("J15")) & 1
    # a hunter beside the road (L18 is open, off-road) gets no road vision
    assert not (B.SIGHT[C("M19")] >> C("J30")) & 1


def test_c3_junction_sees_both_strips():
    n13 = B.SIGHT[C("N13")]  # R1 and R3 junction
    assert (n13 >> C("W12")) & 1  # other lane of R3
    assert (n13 >> C("O1")) & 1  # other lane of R1


def test_c51_smoke_blocks_sight_and_a_hunter_in_smoke_sees_only_itself():
    smoke = B.smoke_area(C("Q7"))
    s = B.sight(C("Q10"), smoke)
    assert not (s >> C("Q5")) & 1 and not (s >> C("Q8")) & 1
    assert (s >> C("Q9")) & 1
    assert B.sight(C("Q7"), smoke) == 1 << C("Q7")


def test_c45_sniper_shot_sees_only_its_direction():
    s = B.sight(C("Q10"), 0, 0)  # north
    assert (s >> C("Q5")) & 1 and not (s >> C("R10")) & 1 and not (s >> C("Q11")) & 1


def test_c18_sensor_direction_example_o5_to_l4_with_vehicle_on_n9():
    assert B.SENSOR_DIRS[B.sensor_direction(C("N9"), C("L4"))] == "NW"
    assert B.SENSOR_DIRS[B.sensor_direction(C("N9"), C("N4"))] == "N"
    assert B.SENSOR_DIRS[B.sensor_direction(C("N9"), C("W9"))] == "E"
    assert B.SENSOR_DIRS[B.sensor_direction(C("N9"), C("N9"))] == "here"


def test_c1_distance_is_chebyshev():
    assert B.dist(C("A1"), C("D3")) == 3
    assert B.walk_distance(C("K17"), C("K21")) == 4
