"""Type hints: the package type-checks with mypy under pyproject.toml's
configuration (its annotated modules with every function annotated), and a
user's program sees the public API's types through py.typed."""
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A user's program, with the types mypy should infer and one mistake it must report.
USER_PROGRAM = '''
import quartzite as qz

rect = qz.Rect(0, 0, 10, 10).inset(1, 1)
reveal_type(rect)
reveal_type(rect.contains((2, 2)))
reveal_type(qz.Transform3D.rotation(0.5, 0, 0, 1) @ qz.Transform3D.scale(2, 2, 1))
reveal_type(qz.Color(1, 0, 0).components)
buffer = qz.PixelBuffer(4, 4, "BGRA")
reveal_type(buffer.width)
reveal_type(buffer.plane_count)
renderer = qz.Renderer(None, 4, 4)
reveal_type(renderer.frame(0.0, copy=False))
reveal_type(renderer.next_frame_time)
reveal_type(qz.Path().move_to(0, 0).line_to(4, 4).length)
reveal_type(qz.current_media_time())
width: str = buffer.width
'''

EXPECTED = [
    'Revealed type is "quartzite.geometry.Rect"',
    'Revealed type is "bool"',
    'Revealed type is "quartzite.geometry.Transform3D"',
    'Revealed type is "tuple[float, ...]"',
    'Revealed type is "int"',
    'Revealed type is "int"',
    'Revealed type is "quartzite.renderer.Frame"',
    'Revealed type is "float"',
    'Revealed type is "float"',
    'Revealed type is "float"',
]


def _mypy(*args, cwd=REPO):
    pytest.importorskip("mypy", reason="mypy is in Tests/python/requirements.txt")
    env = dict(os.environ, MYPYPATH=os.path.join(REPO, "bindings", "python"))
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", os.devnull, *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def test_the_package_type_checks():
    result = _mypy("--config-file", os.path.join(REPO, "pyproject.toml"), "-p", "quartzite")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_users_program_sees_the_public_types(tmp_path):
    program = tmp_path / "user.py"
    program.write_text(USER_PROGRAM)
    result = _mypy("--python-version", "3.10", str(program), cwd=str(tmp_path))
    lines = result.stdout.splitlines()
    revealed = [re.sub(r"^.*?note: ", "", line) for line in lines if "Revealed type" in line]
    assert revealed == EXPECTED, result.stdout
    # Only the program's own errors: mypy reports those of packages found on
    # MYPYPATH too (an installed package's, through py.typed, it would not).
    errors = [line for line in lines if line.startswith("user.py") and ": error:" in line]
    assert len(errors) == 1 and 'Incompatible types in assignment (expression has type "int", variable has type "str")' \
        in errors[0], result.stdout
