"""The two reference-media asset libraries: endpoints, types, review states and how each
is used (names, batch uploads, delete), so forms and panels hold no library ids."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AssetLibrary:
    """One asset library of the service (paths are relative to the base URL, unversioned).

    Attributes:
        id: ``seedance2`` or ``sd2``.
        title: Its name in a heading.
        family: The video family whose requests reference its assets.
        upload_path: The upload endpoint.
        status_path: The status endpoint, where it has one.
        item_path: The GET and DELETE path template with ``{assetId}``, where it has one.
        asset_types: The types it takes (``Image``, ``Video``, ``Audio``, ``Document``).
        review_states: States in review order; the first is a new upload's state.
        id_format: How its ids look (``opaque`` when nothing can be said).
        short_title: Its name in a sentence.
        takes_names: An upload may carry a readable ``name``.
        url_lists: Batch upload: the body's URL list for each asset type.
        id_prefix: What every id of this library starts with ("" for opaque ids).
    """

    id: str
    title: str
    family: str
    """Video family whose requests reference this library's assets."""
    upload_path: str
    status_path: str | None
    item_path: str | None
    """Path template with ``{assetId}`` for GET and DELETE, where the library has one."""
    asset_types: tuple[str, ...]
    review_states: tuple[str, ...]
    """States in review order; the first is a new upload's state until the service says."""
    id_format: str
    short_title: str = ""
    """The library's name in a sentence ("the SD2 Manxue library")."""
    takes_names: bool = False
    """An upload may carry a readable ``name``."""
    url_lists: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """Batch upload: the body's URL list for each asset type. Empty: one upload per URL,
    as ``{"assetType", "url", "name"}``."""
    id_prefix: str = ""
    """Every id of this library starts with it; "" for opaque ids (the other library)."""

    @property
    def can_delete(self) -> bool:
        """Whether the library has a delete endpoint (else a panel can only forget an id)."""
        return self.item_path is not None


ASSET_LIBRARIES: dict[str, AssetLibrary] = {
    "seedance2": AssetLibrary(
        id="seedance2",
        title="Seedance 2.0 asset library",
        family="seedance2",
        upload_path="/svcVideo2/asset/upload",
        status_path=None,
        item_path="/svcVideo2/asset/{assetId}",
        asset_types=("Image", "Video", "Audio", "Document"),
        review_states=("Processing", "Active", "Failed"),
        id_format="asset-{timestamp}-{random}",
        short_title="Seedance 2.0",
        takes_names=True,
        id_prefix="asset-",
    ),
    "sd2": AssetLibrary(
        id="sd2",
        title="SD2 Manxue asset library",
        family="sd2_manxue",
        upload_path="/asset/sd2Manxue/assetUpload",
        status_path="/asset/sd2Manxue/assetStatus",
        item_path=None,
        asset_types=("Image", "Video", "Audio"),
        review_states=("submitted", "Processing", "Active", "Failed"),
        id_format="opaque",
        short_title="SD2 Manxue",
        url_lists={"Image": "imageUrls", "Video": "videoUrls", "Audio": "audioUrls"},
    ),
}
"""Both asset libraries by id; the first is a form's default."""

ASSET_PENDING_STATES: tuple[str, ...] = ("submitted", "Processing")
ASSET_ACTIVE = "Active"
ASSET_FAILED = "Failed"


def asset_uri(asset_id: str) -> str:
    """The reference string for an asset: ``asset://{assetId}``.

    Args:
        asset_id: The asset's id.

    Returns:
        ``asset://{asset_id}``.
    """
    return f"asset://{asset_id}"


def parse_asset_uri(value: str) -> str | None:
    """The asset id inside ``asset://{id}``, or None when ``value`` is not an asset URI.

    Args:
        value: Any string a URL field holds.

    Returns:
        The id, or None.
    """
    if value.startswith("asset://"):
        return value[len("asset://") :] or None
    return None


def library_for_id(asset_id: str) -> AssetLibrary:
    """The library an asset id belongs to, by its id format (opaque ids: the other one).

    Args:
        asset_id: An asset's id.

    Returns:
        Its library.
    """
    libraries = list(ASSET_LIBRARIES.values())
    prefixed = [lib for lib in libraries if lib.id_prefix and asset_id.startswith(lib.id_prefix)]
    opaque = [lib for lib in libraries if not lib.id_prefix]
    return (prefixed or opaque or libraries)[0]
