"""Whether other processes serve this site with this one: asked here, and nowhere else.

The channel layer says it: an in-memory layer (or none) reaches no other process, so this one
is alone; Redis reaches every process of the deployment. The outbox publishes a change to the
table's group only when others may listen, the renderer draws HTML for API-only rooms only when
a browser elsewhere may want it, and the owners forward moves only to processes that exist.
"""

from __future__ import annotations

from channels.layers import InMemoryChannelLayer, get_channel_layer


def alone() -> bool:
    """Whether no other process can hear this one (its channel layer is in memory, or none)."""
    layer = get_channel_layer()
    return layer is None or isinstance(layer, InMemoryChannelLayer)
