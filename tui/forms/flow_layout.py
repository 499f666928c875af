"""Children left to right, wrapping onto the next line when the next one would not fit: a set's chips.

In one horizontal row, a set's fourth scope ran off the form's right edge with the add box after
it: the member was saved but never seen again, and the box to add one more was out of reach.
"""

from __future__ import annotations

from textual.geometry import NULL_OFFSET, Region, Size
from textual.layout import ArrangeResult, Layout, WidgetPlacement
from textual.widget import Widget


class FlowLayout(Layout):
    """A line of widgets that wraps. A widget ``1fr`` wide (the add box) fills the rest of its line,
    or starts a line of its own when fewer than its ``min-width`` cells are left there."""

    name = "flow"

    def arrange(self, parent: Widget, children: list[Widget], size: Size, greedy: bool = True) -> ArrangeResult:
        parent.pre_layout(self)
        viewport = parent.app.viewport_size
        line_width = max(size.width, 1)
        placements: list[WidgetPlacement] = []
        x = y = line_height = 0
        for child in children:
            styles = child.styles
            margin = styles.margin
            gutter = styles.gutter
            fills = styles.width is not None and styles.width.is_fraction
            least = styles.min_width.resolve(size, viewport) if styles.min_width is not None else 1
            natural = 0 if fills else child.get_content_width(size, viewport) + gutter.width
            width = min(max(int(least), natural), line_width)
            if x and x + width > line_width:
                x, y, line_height = 0, y + line_height, 0
            if fills:
                width = line_width - x
            height = child.get_content_height(size, viewport, width - gutter.width) + gutter.height
            placements.append(WidgetPlacement(Region(x, y, width, height), NULL_OFFSET, margin, child))
            x += width + margin.right
            line_height = max(line_height, height)
        return placements
