"""vector_rows: the vectors a sentence names, as table rows (issue 18: vectors in tables)."""
import math

import numpy as np
import torch

from rnnviz import formatting
from rnnviz.explain import embedding as emb
from rnnviz.formatting import num, vector_rows


def test_one_row_per_vector_one_text_column_per_component():
    rows = vector_rows([("E[2]", torch.tensor([-0.4, 0.8, 0.1])), ("g_e", np.array([2.0, -1.0, 3.0]))], "vector")
    assert rows == [{"vector": "E[2]", "1": "-0.4", "2": "0.8", "3": "0.1"},
                    {"vector": "g_e", "1": "2", "2": "-1", "3": "3"}]


def test_cells_use_the_one_number_format_and_short_vectors_leave_blanks():
    vals = [1.23456789, -1e-9, float("inf")]
    rows = vector_rows([("a", vals), ("b", [5.0])], "name")
    assert [rows[0][str(j + 1)] for j in range(3)] == [num(v) for v in vals] == ["1.235", "-1e-09", "inf"]
    assert rows[1] == {"name": "b", "1": "5", "2": "", "3": ""}
    assert {type(v) for r in rows for v in r.values()} == {str}  # one type per column (Arrow-safe)


def test_one_number_format_four_significant_digits():
    assert [formatting.num(v) for v in (0.123456, 1.577e-07, -0.0, 12345.6, math.nan, -math.inf)] == \
        ["0.1235", "1.577e-07", "0", "1.235e+04", "NaN", "-inf"]
    assert emb.num is formatting.num  # old names, one function
    assert formatting.vector(torch.tensor([[0.5, -2.0]])) == "[0.5, -2]"
    assert formatting.vector(np.arange(8.0), shown=3) == "[0, 1, 2, … (8 in all)]"
    assert formatting.vector([0.123456, 1.0]) == formatting.vector([0.123456, 1.0]) == "[0.1235, 1]"


def test_a_filled_in_number_is_one_subscript():
    """Labels fill numbers into templates ('from L_{s}', s = 11, gives 'from L_11'): the whole number
    is the subscript, as on a sentence of 11 or more tokens (page 4's legend read 'L₁1')."""
    plain = formatting.plain_math
    assert plain("from L_3 … L_11 (9 later losses)") == "from L₃ … L₁₁ (9 later losses)"
    assert plain("J_5..J_12") == "J₅..J₁₂" and plain("1 - h_12^2") == "1 - h₁₂²"
    assert plain("x_2") == "x₂" and plain("W_h h_{t-1} + b_h") == "Wₕ hₜ₋₁ + bₕ" and plain("x_t1") == "xₜ1"


def test_a_value_inside_the_bound_never_reads_as_the_bound():
    """tanh's values near ±1 (float32 saturates at 0.99999994) read with the digits they need."""
    from hypothesis import given
    from hypothesis import strategies as st

    from rnnviz.formatting import num_inside

    assert num_inside(0.9999989867) == "0.999999"
    assert num_inside(-0.99999994) == "-0.9999999"
    assert num_inside(0.5) == num(0.5) == "0.5" and num_inside(0.99995) == "0.99995"
    assert num_inside(1.0) == "1" and num_inside(-1.0) == "-1" and num_inside(2.5) == "2.5"
    assert num_inside(0.99951, digits=3) == "0.9995"  # the overview's 3 digits, one more here

    @given(st.floats(-1, 1, exclude_min=True, exclude_max=True))
    def inside(v):
        text = num_inside(v)
        assert abs(float(text)) < 1, (v, text)
        assert text == num(v) or abs(float(num(v))) >= 1  # more digits only where num reads ±1

    inside()
    big = np.float32(np.tanh(np.float32(9.0)))  # float32's tanh(9): 0.99999994, not 1
    assert float(big) < 1 and num(big) == "1" and num_inside(big) == "0.9999999"
