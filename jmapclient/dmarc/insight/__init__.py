"""DMARC insight: who sends mail as a domain, and when it is safe to enforce its policy.

Built on the report digests of :mod:`jmapclient.dmarc.digest_store` (one paging flow, one
digest), in small modules with one job each:

- :mod:`.services`: the organisational (base) domain of a name, with the Public Suffix
  List the ``publicsuffixlist`` package ships, and the service behind it from
  ``senders.toml`` (base domain → service and kind).
- :mod:`.names`: reverse DNS of each source IP, kept only when the forward lookup
  confirms it; asynchronous, bounded, cached (0600), and an offline switch.
- :mod:`.alignment`: DMARC identifier alignment under relaxed and strict modes.
- :mod:`.judge`: the class of each source, with its reason in words, grouped by service.
- :mod:`.advice`: per policy domain, the published policy, what the next step would
  affect, and a verdict in words with its evidence.

Nothing here imports textual; dnspython loads only when a lookup is really made.
"""
