"""The demo domain: waste logistics (facilities, shipments, contaminants, inspections)."""

from ._data import WasteData, generate_database
from ._tools import register

__all__ = ["WasteData", "generate_database", "register"]
