"""Management › Reports › Inbox › DMARC: the inbox, its drill-down, analytics and actions.

The shell's section registry imports :class:`tui.reports.inbox.DmarcInbox` on first use and
calls it with the :class:`ConsoleContext`.
"""
