"""Forms generated from the models' field declarations (``jmapclient.models.introspect``).

- :mod:`tui.forms.model_form`: :class:`ModelForm`, one model's fields, grouped as declared;
- :mod:`tui.forms.scalars`: editors for one scalar field (text, number, duration, switch, select, secret);
- :mod:`tui.forms.taglist`: the editable tag list of a ``Set<String>``;
- :mod:`tui.forms.nested`: a variant select that swaps its sub-form, and a growable list of sub-forms.
"""

from tui.forms.model_form import ModelForm

__all__ = ["ModelForm"]
