"""spaCy is imported without its CLI, srsly's YAML API and packaging's requirement parser, and without
thinc importing torch (with
torch when torch is already imported): each case in a fresh interpreter (what a process has imported
cannot be undone)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="only an environment with torch installed has the cost"
)


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_spacy_imports_without_its_cli_and_the_cli_imports_on_first_use() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "spacy = import_spacy()\n"
        "cli = ('spacy.cli', 'spacy.cli.info', 'typer', 'weasel', 'click', 'requests')\n"
        "print(sorted(m for m in cli if m in sys.modules), hasattr(spacy.cli, '__file__'))\n"
        "print(isinstance(spacy.info(silent=True), dict))\n"
        "import spacy.cli\n"
        "print(hasattr(spacy.cli, 'app'), spacy.cli.__file__.endswith('__init__.py'))\n"
    )
    assert out.splitlines() == ["[] False", "True", "True True"]


def test_the_stand_in_imports_the_real_cli_on_first_use() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "spacy = import_spacy()\n"
        "print(callable(spacy.cli.app), spacy.cli is sys.modules['spacy.cli'])\n"
        "print(spacy.cli.__file__.endswith('__init__.py'))\n"
    )
    assert out.splitlines() == ["True True", "True"]


# Other threads import spacy.cli while the stand-ins are in sys.modules: our import is held in the
# stand-in's loader until one thread's `import spacy.cli` has found the stand-in (seen when the import
# machinery reads its spec's `_initializing`; that thread then reads `spacy.cli` only after our import
# is done) and another holds the stand-in from importlib.import_module (and uses it at once).
_RACE = """
import importlib, sys, threading
from importlib.machinery import ModuleSpec
from trustscore.grounding.claims import _thinc_import as ti

looked_up, held, imported = threading.Event(), threading.Event(), threading.Event()
seen = {}

def statement():
    import spacy.cli
    imported.wait()
    seen['statement'] = callable(spacy.cli.app)

def holder():
    cli = importlib.import_module('spacy.cli')
    held.set()
    seen['holder'] = callable(cli.app) and cli.__name__ == 'spacy.cli'

threads = [threading.Thread(target=statement), threading.Thread(target=holder)]

class WatchedSpec(ModuleSpec):
    @property
    def _initializing(self):
        if threading.get_ident() == threads[0].ident:
            looked_up.set()
        return vars(self).get('busy', False)

    @_initializing.setter
    def _initializing(self, value):
        vars(self)['busy'] = value

exec_module = ti._StandInLoader.exec_module

def blocking_exec_module(self, module):
    if module.__name__ == 'spacy.cli.info':
        threads[0].start()
        looked_up.wait()
        threads[1].start()
        held.wait()
    exec_module(self, module)

ti.ModuleSpec = WatchedSpec
ti._StandInLoader.exec_module = blocking_exec_module
spacy = ti.import_spacy()
imported.set()
for thread in threads:
    thread.join()
print(sorted(seen.items()))
print(sys.modules['spacy.cli'].__file__.endswith('__init__.py'), spacy.cli is sys.modules['spacy.cli'])
"""


def test_srsly_imports_without_its_yaml_api_and_the_api_imports_on_first_use() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import srsly\n"
        "print(sorted(m for m in sys.modules if m.startswith(('srsly._yaml', 'srsly.ruamel'))))\n"
        "text = srsly.yaml_dumps({'a': [1, 2]})\n"
        "print(srsly.yaml_loads(text), srsly.is_yaml_serializable({'a': 1}), srsly.read_yaml.__name__)\n"
        "import srsly._yaml_api as api\n"
        "print(api.__file__.endswith('_yaml_api.py'), api is sys.modules['srsly._yaml_api'])\n"
        "print(api.yaml_dumps({'a': [1, 2]}) == text, 'srsly.ruamel_yaml' in sys.modules)\n"
    )
    assert out.splitlines() == ["[]", "{'a': [1, 2]} True read_yaml", "True True", "True True"]


def test_a_srsly_imported_before_keeps_its_yaml_api() -> None:
    out = _run(
        "import sys, srsly\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "print(srsly.yaml_dumps is sys.modules['srsly._yaml_api'].yaml_dumps)\n"
    )
    assert out == "True"


def test_a_thread_importing_the_cli_meanwhile_gets_the_real_one() -> None:
    out = _run(_RACE)
    assert out.splitlines() == ["[('holder', True), ('statement', True)]", "True True"]


# Another thread uses srsly's YAML API while spaCy imports: our import is held at spaCy's CLI stand-in
# (srsly is imported by then, its YAML functions stand-ins) until that thread is about to call one.
_YAML_RACE = """
import sys, threading
from trustscore.grounding.claims import _thinc_import as ti

calling, seen = threading.Event(), {}

def user():
    import srsly
    seen['during'] = 'srsly.ruamel_yaml' not in sys.modules
    calling.set()
    seen['loaded'] = srsly.yaml_loads(srsly.yaml_dumps({'a': [1, 2]}))

thread = threading.Thread(target=user)
exec_module = ti._StandInLoader.exec_module

def blocking_exec_module(self, module):
    if module.__name__ == 'spacy.cli.info' and not thread.is_alive():
        thread.start()
        calling.wait()
    exec_module(self, module)

ti._StandInLoader.exec_module = blocking_exec_module
ti.import_spacy()
thread.join()
print(sorted(seen.items()))
print(sys.modules['srsly._yaml_api'].__file__.endswith('_yaml_api.py'))
"""


def test_a_thread_using_srsly_yaml_meanwhile_gets_the_real_api() -> None:
    out = _run(_YAML_RACE)
    assert out.splitlines() == ["[('during', True), ('loaded', {'a': [1, 2]})]", "True"]


def test_spacy_util_imports_without_packagings_requirement_parser_which_imports_on_first_use() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import spacy.util\n"
        "print(sorted(m for m in sys.modules if m.startswith(('packaging.req', 'packaging._parser'))))\n"
        "print(spacy.util.split_requirement('spacy>=3.8.0,<3.9.0'))\n"
        "from packaging.requirements import Requirement\n"
        "print(isinstance(Requirement('a>1'), Requirement), 'packaging._parser' in sys.modules)\n"
    )
    assert out.splitlines() == ["[]", "('spacy', '<3.9.0,>=3.8.0')", "True True"]


# Another thread imports packaging's Requirement while spaCy imports (held at spaCy's CLI stand-in,
# after spacy.util took its stand-in): that thread waits and gets the class itself.
_REQUIREMENT_RACE = """
import threading
from trustscore.grounding.claims import _thinc_import as ti

importing, seen = threading.Event(), {}

def user():
    importing.set()
    from packaging.requirements import Requirement
    seen['class'] = isinstance(Requirement, type) and isinstance(Requirement('a>1'), Requirement)

thread = threading.Thread(target=user)
exec_module = ti._StandInLoader.exec_module

def blocking_exec_module(self, module):
    if module.__name__ == 'spacy.cli.info' and not thread.is_alive():
        thread.start()
        importing.wait()
    exec_module(self, module)

ti._StandInLoader.exec_module = blocking_exec_module
ti.import_spacy()
thread.join()
print(seen)
"""


def test_a_thread_importing_packagings_requirement_meanwhile_gets_the_class() -> None:
    assert _run(_REQUIREMENT_RACE) == "{'class': True}"


# A YAML function called on the importing thread itself, before spaCy's import ends (a plug-in
# imported meanwhile): a clear error, not a wait for an import that is below the call.
_YAML_ON_THE_IMPORTING_THREAD = """
from trustscore.grounding.claims import _thinc_import as ti

exec_module, seen = ti._StandInLoader.exec_module, []

def calling_exec_module(self, module):
    if module.__name__ == 'spacy.cli.info' and not seen:
        import srsly
        try:
            srsly.yaml_loads('a: 1')
        except AttributeError as error:
            seen.append(str(error))
    exec_module(self, module)

ti._StandInLoader.exec_module = calling_exec_module
ti.import_spacy()
import srsly
print(seen)
print(srsly.yaml_loads('a: 1'))
"""


def test_a_yaml_call_on_the_importing_thread_is_an_error_not_a_wait() -> None:
    out = _run(_YAML_ON_THE_IMPORTING_THREAD)
    assert out.splitlines() == [
        "['srsly._yaml_api.yaml_loads is not available while spaCy imports']",
        "{'a': 1}",
    ]


def test_a_failed_import_leaves_nothing_behind_but_thinc_without_torch() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims import _thinc_import as ti\n"
        "sys.modules['spacy.vocab'] = None\n"
        "try:\n"
        "    ti.import_spacy()\n"
        "except ImportError as error:\n"
        "    print('failed:', error.name)\n"
        "print(any(isinstance(f, ti._SpacyImportFinder) for f in sys.meta_path))\n"
        "print(sorted(m for m in sys.modules if m == 'spacy' or m.startswith('spacy.cli')))\n"
        "import thinc.compat\n"
        "print('has_torch:', thinc.compat.has_torch)\n"
        "import srsly\n"
        "print(sys.modules.get('srsly._yaml_api'), srsly.yaml_loads('a: 1'))\n"
        "del sys.modules['spacy.vocab']\n"
        "import spacy.cli\n"
        "print(callable(spacy.cli.app), spacy.cli.__file__.endswith('__init__.py'))\n"
    )
    assert out.splitlines() == [
        "failed: spacy.vocab",
        "False",
        "[]",
        "has_torch: False",
        "None {'a': 1}",
        "True True",
    ]


def test_only_spacy_srsly_and_spacy_util_themselves_get_the_stand_ins() -> None:
    from trustscore.grounding.claims._thinc_import import _SpacyImportFinder

    finder = _SpacyImportFinder(keep_torch_out=False)
    assert finder.find_spec("spacy.cli") is None
    assert finder.find_spec("spacy.cli.info") is None
    as_spacy = {"__name__": "spacy", "finder": finder}
    package = eval('finder.find_spec("spacy.cli")', as_spacy)
    info = eval('finder.find_spec("spacy.cli.info")', as_spacy)
    assert (package.name, package.submodule_search_locations) == ("spacy.cli", [])
    assert (info.name, info.submodule_search_locations) == ("spacy.cli.info", None)
    assert eval('finder.find_spec("spacy.cli.download")', as_spacy) is None
    assert eval('finder.find_spec("srsly._yaml_api")', as_spacy) is None
    yaml = eval('finder.find_spec("srsly._yaml_api")', {"__name__": "srsly", "finder": finder})
    assert (yaml.name, yaml.submodule_search_locations) == ("srsly._yaml_api", None)
    assert eval('finder.find_spec("packaging.requirements")', as_spacy) is None
    as_util = {"__name__": "spacy.util", "finder": finder}
    requirements = eval('finder.find_spec("packaging.requirements")', as_util)
    assert (requirements.name, requirements.submodule_search_locations) == ("packaging.requirements", None)
    assert eval('finder.find_spec("packaging.specifiers")', as_util) is None


@needs_torch
def test_spacy_loads_without_torch_and_torch_still_imports_afterwards() -> None:
    out = _run(
        "import sys\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "print('torch' in sys.modules, thinc.compat.has_torch)\n"
        "import torch\n"
        "print(torch.tensor([1.0]).sum().item())\n"
    )
    assert out.splitlines() == ["False False", "1.0"]


@needs_torch
def test_a_torch_imported_before_is_left_to_thinc() -> None:
    out = _run(
        "import torch\n"
        "from trustscore.grounding.claims._thinc_import import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "print(thinc.compat.has_torch)\n"
    )
    assert out == "True"


@needs_torch
def test_only_thinc_is_kept_from_torch_while_spacy_imports() -> None:
    out = _run(
        "import sys, threading\n"
        "from trustscore.grounding.claims import _thinc_import as ti\n"
        "sys.meta_path.insert(0, ti._SpacyImportFinder(keep_torch_out=True))\n"
        "try:\n"
        "    exec('import torch', {'__name__': 'thinc.compat'})\n"
        "except ModuleNotFoundError:\n"
        "    print('thinc: refused')\n"
        "exec('import torch', {'__name__': 'some.signal'})\n"
        "print('other:', 'torch' in sys.modules)\n"
    )
    assert out.splitlines() == ["thinc: refused", "other: True"]
