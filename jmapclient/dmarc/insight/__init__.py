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
- :mod:`.screening`: which reports count: each once (reporter and report id), none implausible
  for its reporter (reports are unauthenticated mail; their counts can be forged or repeated).
- :mod:`.advice`: per policy domain, the published policy, what the next step would
  affect, and a verdict in words with its evidence.

A view that must never wait for DNS: take the period's digests from the store, call
:func:`.advice.advise` (or :func:`.judge.judge_sources` / :func:`.judge.judge_report`)
with ``{ip: resolver.known(ip)}`` (cached names, else pending), show it, then iterate
:meth:`.names.NameResolver.stream` in a worker and judge again as names arrive (judging
is pure and quick). ``NameResolver(offline=True)`` is the offline setting.

Nothing here imports textual; dnspython loads only when a lookup is really made.
"""
