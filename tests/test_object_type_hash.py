"""ObjectType keys caches (functools.cache in the stub): it must be hashable."""

from functools import cache

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT


def test_object_types_are_hashable_cache_keys():
    calls = []

    @cache
    def name_of(object_type):
        calls.append(object_type)
        return object_type.name

    assert name_of(DIRECTORY) == "Directory" and name_of(DIRECTORY) == "Directory"
    assert name_of(DMARC_EXTERNAL_REPORT) == "DmarcExternalReport"
    assert len(calls) == 2
    assert {DIRECTORY: 1}[DIRECTORY] == 1
