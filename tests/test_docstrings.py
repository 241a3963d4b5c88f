"`help()` and IPython's `?` show every public parameter of the estimators, and the docs site's text stays as written."
import inspect
import pydoc

import pytest

from latent_mm.lssvm import GroupNormSSVM, LatentSSVM, SelfPacedSSVM
from latent_mm.kmeans import GMMKMeans
from latent_mm.scene import RBoWModel


@pytest.mark.parametrize("cls", [GMMKMeans, LatentSSVM, SelfPacedSSVM, GroupNormSSVM, RBoWModel])
def test_help_lists_every_parameter_with_its_comment(cls):
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    section = text[text.index("Parameters\n"):]
    params = [p for p in inspect.signature(cls.__init__).parameters.values()
              if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    assert params
    for p in params:
        assert f"\n |      {p.name}" in section or f"\n    {p.name}" in section, (cls.__name__, p.name)
    assert "(undocumented)" not in section
    assert "Parameters" not in inspect.getdoc(cls)          # the class's own docstring (the docs site's) unchanged
