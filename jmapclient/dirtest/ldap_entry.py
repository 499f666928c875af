"""The live LDAP test's steps on the entry found for the login: the attributes the server maps,
groups and aliases (rule L1). Part of the probe in :mod:`jmapclient.dirtest.ldap_probe`, split out
by job: the probe connects, binds and finds the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.dirtest import hashes, steps
from jmapclient.dirtest.steps import Outcome, Report
from jmapclient.rules import members

NO_HASH_FIX = (
    "grant the bind DN read access to the password-hash attribute (OpenLDAP: olcAccess ... by dn=BIND-DN read), "
    "or turn bind authentication on"
)
_MEMBER_FILTER = "(&(objectClass={group_class})(member=?))"


class EntryChecks:
    """The entry's steps; the probe sets the state and answers :meth:`_search`."""

    wire: Mapping[str, Any]
    report: Report
    bind_auth: bool
    entry: Any

    def _search(self, connection: Any, ldap3_: Any, search_filter: str, attributes: list[str]) -> list[Any]:
        raise NotImplementedError

    def _values(self, attributes: list[str]) -> list[str]:
        found: list[str] = []
        for name in attributes:
            if self.entry is not None and name in self.entry.entry_attributes:
                raw = self.entry[name].values
                found += [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in raw]
        return found

    def _attributes(self) -> None:
        """What the server maps from the entry; a failure here leaves the later steps to run (they say more)."""
        email = self._values(members(self.wire.get("attrEmail")))
        kinds = self._values(members(self.wire.get("attrClass")))
        group_class = str(self.wire.get("groupClass") or "groupOfNames")
        secret_names = members(self.wire.get("attrSecret"))
        secret = self._values(secret_names)
        changed = self._values(members(self.wire.get("attrSecretChanged")))
        details = [
            f"e-mail: {', '.join(email) or '(none)'}",
            f"type: {'group' if group_class.lower() in (k.lower() for k in kinds) else 'individual'}",
            f"description: {', '.join(self._values(members(self.wire.get('attrDescription')))) or '(none)'}",
            "password hash: " + (", ".join(hashes.identify(v).words for v in secret) or "(not returned)"),
            f"password changed: {', '.join(changed) or '(not returned)'}",
        ]
        failure = self._attribute_failure(bool(email), secret, bool(changed), secret_names)
        if failure is not None:
            self.report.add(steps.ATTRIBUTES, Outcome.FAILED, *failure, tuple(details))
            return
        self.report.add(steps.ATTRIBUTES, Outcome.PASSED, "the entry holds what the server maps", details=details)

    def _attribute_failure(
        self, has_email: bool, secret: list[str], changed: bool, secret_names: list[str]
    ) -> tuple[str, str] | None:
        """(reason, fix) of what the server would trip over in the entry, or None."""
        if not has_email:
            return (f"the entry has no primary address in {self._names('attrEmail')}",
                    "set Primary e-mail attributes to the attribute holding the address (mail)")
        if self.bind_auth and not secret and not changed:
            return ("bind authentication, and the entry returns neither a password hash nor a password-changed "
                    "value: logins fail with \"Account does not contain secrets\"",
                    "set Password-changed attributes to an attribute the entry has (pwdChangeTime with the "
                    "ppolicy overlay; modifyTimestamp otherwise)")
        if not self.bind_auth and not secret:
            return (f"service-user mode, and the directory returns no hash in {', '.join(secret_names) or '(none)'} "
                    "to the bind DN: no login can succeed", NO_HASH_FIX)
        unknown = [v for v in secret if not hashes.identify(v).known]
        if unknown and not self.bind_auth:
            return f"the password hash is {hashes.identify(unknown[0]).words}", hashes.UNKNOWN_FIX
        return None

    def _names(self, field: str) -> str:
        return ", ".join(members(self.wire.get(field))) or "(no attribute)"

    def _groups(self, ldap3_: Any, connection: Any) -> None:
        from ldap3.utils.conv import escape_filter_chars

        dn = str(self.entry.entry_dn)
        by_attribute = self._values(members(self.wire.get("attrMemberOf")))
        member_filter = self.wire.get("filterMemberOf")
        by_filter: list[str] = []
        try:
            if member_filter:
                by_filter = [str(e.entry_dn) for e in self._search(
                    connection, ldap3_, str(member_filter).replace("?", escape_filter_chars(dn)), ["cn"])]
            groups = sorted(set(by_attribute) | set(by_filter), key=str.lower)
            if groups:
                self.report.add(steps.GROUPS, Outcome.PASSED, f"member of {len(groups)} group(s)", details=groups)
                return
            group_class = str(self.wire.get("groupClass") or "groupOfNames")
            probe = _MEMBER_FILTER.format(group_class=group_class).replace("?", escape_filter_chars(dn))
            actual = [str(e.entry_dn) for e in self._search(connection, ldap3_, probe, ["cn"])]
        except LookupError as error:
            self.report.add(steps.GROUPS, Outcome.FAILED, f"the membership search failed: {error}",
                            "correct the group membership filter")
            return
        if actual:
            attribute = self._names("attrMemberOf")
            self.report.add(
                steps.GROUPS, Outcome.FAILED,
                f"the entry has no {attribute} (this server keeps no memberOf) and "
                + ("the membership filter finds none" if member_filter else "no membership filter is set")
                + f": its {len(actual)} group(s) are not resolved",
                "set Group membership filter to " + _MEMBER_FILTER.format(group_class=group_class),
                tuple(actual),
            )
            return
        self.report.add(steps.GROUPS, Outcome.PASSED, "member of no group")

    def _aliases(self, ldap3_: Any, connection: Any) -> None:
        from ldap3.utils.conv import escape_filter_chars

        aliases = self._values(members(self.wire.get("attrEmailAlias")))
        if not aliases:
            self.report.add(steps.ALIASES, Outcome.PASSED, "no aliases")
            return
        recipient = str(self.wire.get("filterMailbox") or "")
        missed = []
        for alias in aliases:
            try:
                found = self._search(connection, ldap3_, recipient.replace("?", escape_filter_chars(alias)), ["cn"])
            except LookupError:
                found = []
            if str(self.entry.entry_dn) not in {str(e.entry_dn) for e in found}:
                missed.append(alias)
        if missed:
            self.report.add(steps.ALIASES, Outcome.FAILED,
                            f"mail to {', '.join(missed)} is not delivered: the recipient filter does not find "
                            "the entry by it", "make the recipient filter compare the alias attribute too, e.g. "
                            "(|(mail=?)(mailAlias=?))", tuple(aliases))
            return
        self.report.add(steps.ALIASES, Outcome.PASSED, f"{len(aliases)} alias(es), each found by the recipient "
                        "filter", details=aliases)
