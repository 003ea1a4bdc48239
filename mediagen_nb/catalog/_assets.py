"""The two reference-media asset libraries: endpoints, types and review states."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AssetLibrary:
    """One asset library of the service (paths are relative to the base URL, unversioned)."""

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
    id_format: str


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
    ),
}
"""Both asset libraries by id."""

ASSET_PENDING_STATES: tuple[str, ...] = ("submitted", "Processing")
ASSET_ACTIVE = "Active"
ASSET_FAILED = "Failed"


def asset_uri(asset_id: str) -> str:
    """The reference string for an asset: ``asset://{assetId}``."""
    return f"asset://{asset_id}"


def parse_asset_uri(value: str) -> str | None:
    """The asset id inside ``asset://{id}``, or None when ``value`` is not an asset URI."""
    if value.startswith("asset://"):
        return value[len("asset://") :] or None
    return None
