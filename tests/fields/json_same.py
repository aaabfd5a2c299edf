"""json_same.py - the one comparison of a JSON value with the one the
contract wants (docs/fields.md section 4), for check_json.py and
fields_e2e/check.py: equal value AND equal JSON type (bool is not int, 1.0
is not 1), and the sign of a zero (-0.0 is not 0.0)."""
import math


def same(a, b):
    """Equal value and equal JSON type, -0.0 apart from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b
