"""The four demo tools of ``demo-domain.md``; names and parameters are part of the contract.

Their docstrings are what planners read: the embedded planner and the LLM's tool manual
both come from them.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypedDict

from core import READ_ONLY, Settings, ToolRegistry

from ._data import WasteData

City = str
FacilityType = Literal["recycling", "sorting", "composting", "incineration", "landfill"]
ShipmentStatus = Literal["pending", "in_transit", "delivered", "rejected"]
RiskLevel = Literal["low", "medium", "high"]
Category = Literal["plastic", "metal", "glass", "hazardous", "organic", "electronic"]
InspectionResult = Literal["passed", "failed"]
Ids = str | list[str]
# What the queries accept (WasteData._select refuses less than 1); the schema carries it.
Limit = Annotated[int, Field(ge=1)]


class Facility(TypedDict):
    id: str
    name: str
    location: str
    type: str
    capacity_tonnes: float
    utilization: float


class Shipment(TypedDict):
    id: str
    date: str
    facility_id: str
    destination: str
    carrier: str
    status: str
    has_contaminants: bool
    risk_level: str
    weight_kg: float


class Contaminant(TypedDict):
    id: str
    shipment_id: str
    facility_id: str
    date: str
    category: str
    substance: str
    risk_level: str


class Inspection(TypedDict):
    id: str
    facility_id: str
    date: str
    result: str
    inspector: str
    notes: str


class FacilityList(TypedDict):
    data: list[Facility]
    count: int


class ShipmentList(TypedDict):
    data: list[Shipment]
    count: int


class ContaminantList(TypedDict):
    data: list[Contaminant]
    count: int


class InspectionList(TypedDict):
    data: list[Inspection]
    count: int


def register(registry: ToolRegistry, settings: Settings) -> None:
    data = WasteData.for_settings(settings)

    def facilities_list(location: City | None = None, type: FacilityType | None = None,
                        near_capacity: bool | None = None, limit: Limit = 100) -> FacilityList:
        """List waste facilities (recycling plants, sorting centers, composting sites, incinerators, landfills).

        Args:
            location: City the facility is in, e.g. Berlin, Hannover, Munich.
            type: Kind of facility.
            near_capacity: True for facilities at 90% utilization or more.
            limit: Maximum number of facilities to return.

        Returns:
            {"data": [facility], "count": N}; each facility has id, name, location, type,
            capacity_tonnes and utilization (0 to 1).
        """
        return data.facilities(location=location, type=type, near_capacity=near_capacity, limit=limit)

    def shipments_list(date_from: dt.date | None = None, date_to: dt.date | None = None,
                       status: ShipmentStatus | None = None, has_contaminants: bool | None = None,
                       facility_id: Ids | None = None, destination: City | None = None,
                       carrier: str | None = None, risk_level: RiskLevel | None = None,
                       limit: Limit = 100) -> ShipmentList:
        """List waste shipments delivered to facilities, newest first.

        Args:
            date_from: Earliest shipment date, ISO format (YYYY-MM-DD), inclusive.
            date_to: Latest shipment date, ISO format (YYYY-MM-DD), inclusive.
            status: Shipment status.
            has_contaminants: True for contaminated shipments only, false for clean ones.
            facility_id: A facility id or a list of facility ids the shipments went to.
            destination: City the shipment is going to.
            carrier: Carrier company, e.g. EcoHaul, GreenLine, CityCart, RiverFreight.
            risk_level: Contamination risk level of the shipment.
            limit: Maximum number of shipments to return.

        Returns:
            {"data": [shipment], "count": N}; each shipment has id, date, facility_id,
            destination, carrier, status, has_contaminants, risk_level and weight_kg.
        """
        return data.shipments(date_from=date_from, date_to=date_to, status=status,
                              has_contaminants=has_contaminants, facility_id=facility_id,
                              destination=destination, carrier=carrier, risk_level=risk_level,
                              limit=limit)

    def contaminants_list(shipment_ids: list[str] | None = None, facility_id: Ids | None = None,
                          date_from: dt.date | None = None, date_to: dt.date | None = None,
                          risk_level: RiskLevel | None = None, category: Category | None = None,
                          limit: Limit = 100) -> ContaminantList:
        """List contaminants found in shipments.

        Args:
            shipment_ids: Only contaminants found in these shipments.
            facility_id: A facility id or a list of facility ids where they were found.
            date_from: Earliest detection date, ISO format (YYYY-MM-DD), inclusive.
            date_to: Latest detection date, ISO format (YYYY-MM-DD), inclusive.
            risk_level: Risk level of the contaminant.
            category: Contaminant category.
            limit: Maximum number of contaminants to return.

        Returns:
            {"data": [contaminant], "count": N}; each has id, shipment_id, facility_id, date,
            category, substance and risk_level.
        """
        return data.contaminants(shipment_ids=shipment_ids, facility_id=facility_id,
                                 date_from=date_from, date_to=date_to, risk_level=risk_level,
                                 category=category, limit=limit)

    def inspections_list(date_from: dt.date | None = None, date_to: dt.date | None = None,
                         facility_id: Ids | None = None, result: InspectionResult | None = None,
                         limit: Limit = 100) -> InspectionList:
        """List facility inspections.

        Args:
            date_from: Earliest inspection date, ISO format (YYYY-MM-DD), inclusive.
            date_to: Latest inspection date, ISO format (YYYY-MM-DD), inclusive.
            facility_id: A facility id or a list of facility ids that were inspected.
            result: Inspection outcome.
            limit: Maximum number of inspections to return.

        Returns:
            {"data": [inspection], "count": N}; each has id, facility_id, date, result,
            inspector and notes.
        """
        return data.inspections(date_from=date_from, date_to=date_to, facility_id=facility_id,
                                result=result, limit=limit)

    for func in (facilities_list, shipments_list, contaminants_list, inspections_list):
        registry.register(func, group="waste", effects=READ_ONLY)  # queries of the demo data
