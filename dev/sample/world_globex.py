"""Globex Freight: a logistics company (routing, dispatch, fleet telemetry, warehouses, customs).

Several names also exist at Acme with different facts (Alice Chen, Bob Okafor, Priya Nair, Brightline
Retail, Project Falcon, the Platform team), under the same local entity ids, so any cross-context leak
shows up as a wrong fact.

Graph design, which ``known`` and the tests rely on:
- the only ACTIVE route from Kestrel Trucking to Skycast Weather is
  kestrel-trucking -> fleet-telemetry -> telemetry-tsdb -> eta-predictor -> skycast (4 hops); the
  superseded "pings straight into eta-predictor" fact would make it 2 hops;
- Fjord Foods reaches ops-db through route-optimizer and through warehouse-wms (two 2-hop paths);
- tracking-api -> dispatch-scheduler -> route-optimizer -> tracking-api is a call cycle.
"""

from __future__ import annotations

from retrieval_core.models.item import Status

from .spec import (
    Chunk,
    Customer,
    Entity,
    Person,
    Scenario,
    Service,
    World,
    artifact,
    document,
    prop,
    record,
    trace,
)

TEAMS = (
    Entity("team/logistics", "Logistics", "Team"),
    Entity("team/fleet", "Fleet", "Team"),
    Entity("team/warehouse", "Warehouse Ops", "Team"),
    Entity("team/routing", "Routing", "Team"),
    Entity("team/customs", "Customs", "Team"),
    Entity("team/platform", "Platform", "Team"),
    Entity("team/customer-success", "Customer Success", "Team"),
)

ENTITIES = (
    Entity("datastore/ops-db", "ops-db", "Datastore"),
    Entity("datastore/telemetry-tsdb", "telemetry-tsdb", "Datastore"),
    Entity("datastore/events-bus", "events-bus", "Datastore"),
    Entity("vendor/kestrel-trucking", "Kestrel Trucking", "Vendor"),
    Entity("vendor/skycast", "Skycast Weather", "Vendor"),
    Entity("vendor/portside", "Portside Brokers", "Vendor"),
    Entity("incident/inc-2026-007", "INC-2026-007", "Incident"),
    Entity("incident/inc-2026-022", "INC-2026-022", "Incident"),
    Entity("incident/inc-2025-104", "INC-2025-104", "Incident"),
    Entity("project/falcon", "Project Falcon", "Project"),
)

PEOPLE = (
    Person(
        "alice-chen", "Alice Chen", "Director of Logistics", "logistics", "Rotterdam", "2019-06-03", "G-0412"
    ),
    Person("bob-okafor", "Bob Okafor", "Mobile Engineer", "fleet", "Lagos", "2023-03-13", "G-1630"),
    Person(
        "priya-nair", "Priya Nair", "Customs Compliance Lead", "customs", "Singapore", "2021-01-11", "G-0988"
    ),
    Person(
        "marcus-reid",
        "Marcus Reid",
        "Warehouse Systems Engineer",
        "warehouse",
        "Memphis",
        "2024-06-17",
        "G-1902",
    ),
    Person("sven-larsen", "Sven Larsen", "Engineering Manager", "routing", "Oslo", "2020-02-24", "G-0611"),
    Person(
        "aiko-tanaka",
        "Aiko Tanaka",
        "Operations Research Scientist",
        "routing",
        "Tokyo",
        "2022-10-03",
        "G-1377",
    ),
    Person(
        "rafael-costa",
        "Rafael Costa",
        "Fleet Engineering Manager",
        "fleet",
        "São Paulo",
        "2021-05-17",
        "G-1012",
    ),
    Person(
        "fatima-zahra", "Fatima Zahra", "Platform Engineer", "platform", "Casablanca", "2023-08-28", "G-1711"
    ),
    Person(
        "oliver-grant", "Oliver Grant", "Head of Platform", "platform", "Manchester", "2020-09-14", "G-0702"
    ),
    Person(
        "ines-moreau",
        "Ines Moreau",
        "Customer Success Manager",
        "customer-success",
        "Lyon",
        "2022-04-04",
        "G-1255",
    ),
    Person(
        "yusuf-demir",
        "Yusuf Demir",
        "Customer Success Manager",
        "customer-success",
        "Istanbul",
        "2025-01-20",
        "G-2044",
    ),
    Person(
        "chloe-martin",
        "Chloe Martin",
        "Warehouse Operations Manager",
        "warehouse",
        "Lille",
        "2021-11-08",
        "G-1096",
    ),
)

SERVICES = (
    Service(
        "route-optimizer",
        "routing",
        "python3.12",
        "the vehicle routing solver behind every delivery plan",
        5000,
        (
            ("datastore/ops-db", "loads orders and vehicle capacities from"),
            ("service/tracking-api", "publishes planned stops to"),
        ),
    ),
    Service(
        "dispatch-scheduler",
        "logistics",
        "java21",
        "which assigns loads to drivers and dock doors",
        800,
        (
            ("service/route-optimizer", "requests route plans from"),
            ("datastore/ops-db", "stores load assignments in"),
        ),
    ),
    Service(
        "fleet-telemetry",
        "fleet",
        "go1.22",
        "the GPS and engine telemetry pipeline for 2,300 trucks",
        250,
        (
            ("datastore/telemetry-tsdb", "writes GPS pings to"),
            ("datastore/events-bus", "publishes geofence events to"),
        ),
    ),
    Service(
        "eta-predictor",
        "routing",
        "python3.12",
        "delivery ETA predictions for every open stop",
        300,
        (("datastore/telemetry-tsdb", "reads recent truck positions from"),),
    ),
    Service(
        "warehouse-wms",
        "warehouse",
        "java21",
        "the warehouse management system for all 9 hubs",
        400,
        (("datastore/ops-db", "keeps stock and bin locations in"),),
    ),
    Service(
        "label-service",
        "warehouse",
        "node20",
        "shipping label and GS1-128 barcode generation",
        150,
        (("service/warehouse-wms", "pulls parcel dimensions from"),),
    ),
    Service(
        "customs-broker-api",
        "customs",
        "kotlin-jvm21",
        "electronic customs declarations for cross-border shipments",
        3000,
        (("datastore/events-bus", "listens for border-crossing events on"),),
    ),
    Service(
        "tracking-api",
        "platform",
        "go1.22",
        "the public shipment tracking API",
        120,
        (
            ("service/dispatch-scheduler", "reads driver assignments from"),
            ("service/eta-predictor", "shows predicted arrival times from"),
        ),
    ),
)

CUSTOMERS = (
    Customer(
        "brightline-retail",
        "Brightline Retail",
        "GX-5120",
        "retail",
        "Enterprise",
        "USD 2.1M",
        (
            ("warehouse-wms", "e-commerce fulfilment from the Rotterdam and Memphis hubs"),
            ("tracking-api", "branded tracking pages"),
        ),
        "ines-moreau",
        "2026-08-31",
    ),
    Customer(
        "fjord-foods",
        "Fjord Foods",
        "GX-5188",
        "food distribution",
        "Enterprise",
        "USD 1.4M",
        (("route-optimizer", "chilled multi-drop routes"), ("warehouse-wms", "cold-store bin allocation")),
        "yusuf-demir",
        "2026-10-31",
    ),
    Customer(
        "sahara-pharma",
        "Sahara Pharma",
        "GX-5231",
        "pharmaceuticals",
        "Enterprise",
        "USD 3.0M",
        (("customs-broker-api", "import declarations for temperature-controlled vaccines"),),
        "yusuf-demir",
        "2027-03-31",
    ),
    Customer(
        "pinecrest-hardware",
        "Pinecrest Hardware",
        "GX-5307",
        "retail",
        "Standard",
        "USD 380k",
        (("dispatch-scheduler", "store replenishment runs"),),
        "ines-moreau",
        "2026-07-15",
    ),
    Customer(
        "northwind-traders",
        "Northwind Traders",
        "GX-5342",
        "wholesale",
        "Growth",
        "USD 720k",
        (("label-service", "pre-printed pallet labels"),),
        "ines-moreau",
        "2026-12-01",
    ),
)

CALL_CHAINS = (
    ("GET /v2/shipments/{id}/tracking", ("tracking-api", "eta-predictor")),
    ("GET /v2/shipments/{id}/tracking", ("tracking-api", "dispatch-scheduler")),
    ("POST /v2/shipments", ("dispatch-scheduler", "route-optimizer")),
    ("POST /v2/labels", ("label-service", "warehouse-wms")),
    ("POST /v2/declarations", ("customs-broker-api",)),
    ("POST /internal/telemetry/batch", ("fleet-telemetry",)),
)

DOCUMENTS = [
    *document(
        "doc:design-constraints",
        "Design: route-optimizer constraint model v3",
        "s3://globex-docs/design/route-constraints-v3.md",
        "2025-10-06T09:00",
        [
            Chunk(
                "Context. route-optimizer plans 2,100 van routes every night across 9 hubs. Version 2 "
                "modelled time windows as soft constraints, so planners kept overriding routes that broke "
                "customer delivery slots.",
                ("service/route-optimizer",),
            ),
            Chunk(
                "Model. Version 3 makes delivery time windows, driver shift limits and vehicle capacity hard "
                "constraints and keeps only fuel cost and stop balancing as soft penalties. route-optimizer "
                "rejects a plan that violates a hard constraint instead of publishing it.",
                ("service/route-optimizer",),
                ("doc:design-constraints#c1",),
            ),
            Chunk(
                "Validation. Aiko Tanaka maintains a regression suite of 400 recorded routing days; every "
                "solver change must reproduce their feasibility and stay within 2% of their cost.",
                ("person/aiko-tanaka",),
            ),
        ],
    ),
    *document(
        "doc:pm-inc-2026-007",
        "Postmortem INC-2026-007: infeasible routes after the solver upgrade",
        "s3://globex-docs/postmortems/inc-2026-007.md",
        "2026-01-22T16:00",
        [
            Chunk(
                "Summary. During INC-2026-007 on 19 January 2026 route-optimizer published routes for 212 "
                "vans that broke delivery time windows, and 1,300 Fjord Foods and Pinecrest Hardware stops "
                "were delivered late. Severity 2.",
                (
                    "incident/inc-2026-007",
                    "service/route-optimizer",
                    "customer/fjord-foods",
                    "customer/pinecrest-hardware",
                ),
            ),
            Chunk(
                "Timeline. 22:00 the OR-Tools 9.9 upgrade shipped with the nightly plan. 04:30 drivers "
                "reported impossible stop orders. 05:10 Sven Larsen rolled back to the previous solver. "
                "06:00 dispatch-scheduler re-sent corrected plans.",
                ("person/sven-larsen", "service/dispatch-scheduler"),
            ),
            Chunk(
                "Root cause. The upgrade changed how route-optimizer passes time windows to the solver, "
                "turning the hard constraints of the v3 model back into soft penalties. The 400-day "
                "regression suite existed but was not wired into the release pipeline.",
                ("service/route-optimizer",),
                ("doc:design-constraints#c2",),
            ),
            Chunk(
                "Action items. AI-31: block route-optimizer releases unless the 400-day regression suite "
                "passes (owner Aiko Tanaka, due 15 March 2026). AI-32: alert when more than 2% of planned "
                "stops fall outside their time window (owner Sven Larsen).",
                ("service/route-optimizer", "person/aiko-tanaka", "person/sven-larsen"),
                ("doc:pm-inc-2026-007#c3",),
            ),
        ],
    ),
    *document(
        "doc:design-crossdock",
        "Cross-dock slotting at the Rotterdam hub",
        "s3://globex-docs/design/rotterdam-cross-dock.md",
        "2025-12-01T10:00",
        [
            Chunk(
                "Problem. Inbound trailers at Rotterdam wait 50 minutes on average for a free door because "
                "warehouse-wms assigns doors first-come, first-served.",
                ("service/warehouse-wms",),
            ),
            Chunk(
                "Cross-dock slotting. Each inbound pallet gets a cross-dock slot as soon as its trailer is "
                "announced: cross-dock slotting pairs the inbound door with the outbound wave that carries "
                "the pallet, so it moves door to door without being put away. Slotting runs every 5 minutes "
                "and re-plans a wave when a trailer is late.",
                (),
                ("doc:design-crossdock#c1",),
            ),
            Chunk(
                "Rollout. Chloe Martin runs the pilot on doors 1-12 from February 2026; Marcus Reid builds "
                "the slotting service inside warehouse-wms.",
                ("person/chloe-martin", "person/marcus-reid", "service/warehouse-wms"),
            ),
        ],
    ),
    *document(
        "doc:pm-inc-2026-022",
        "Postmortem INC-2026-022: two-hour telemetry gap",
        "s3://globex-docs/postmortems/inc-2026-022.md",
        "2026-03-12T11:00",
        [
            Chunk(
                "Summary. During INC-2026-022 on 9 March 2026 from 02:10 to 04:05 UTC no truck positions "
                "were stored. Dispatchers saw frozen trucks on the map and customers received ETAs up to "
                "40 minutes wrong.",
                ("incident/inc-2026-022",),
            ),
            Chunk(
                "Root cause. The 2026-03 partition of telemetry-tsdb filled its disk; fleet-telemetry kept "
                "accepting GPS pings from the trucks but every write failed and was dropped after three "
                "retries. The Kestrel Trucking telematics boxes were online throughout.",
                ("datastore/telemetry-tsdb", "service/fleet-telemetry", "vendor/kestrel-trucking"),
            ),
            Chunk(
                "Action items. AI-52: Rafael Costa adds a dead-letter queue so fleet-telemetry never drops "
                "pings. AI-53: Fatima Zahra moves telemetry-tsdb partitions to auto-extending volumes.",
                (
                    "person/rafael-costa",
                    "service/fleet-telemetry",
                    "person/fatima-zahra",
                    "datastore/telemetry-tsdb",
                ),
                ("doc:pm-inc-2026-022#c2",),
            ),
        ],
    ),
    *document(
        "doc:org-2026-01",
        "Operations org update - January 2026",
        "s3://globex-docs/org/2026-01.md",
        "2026-01-05T09:00",
        [
            Chunk(
                "From 5 January 2026 Alice Chen leads the Logistics team, which now includes dispatch and "
                "the Rotterdam control tower. Sven Larsen keeps Routing.",
                ("person/alice-chen", "team/logistics", "person/sven-larsen", "team/routing"),
            ),
            Chunk(
                "Priya Nair leads Customs and becomes the single contact for Portside Brokers. Oliver "
                "Grant's Platform team takes over tracking-api from Logistics.",
                (
                    "person/priya-nair",
                    "team/customs",
                    "vendor/portside",
                    "person/oliver-grant",
                    "team/platform",
                ),
            ),
        ],
    ),
    *document(
        "doc:falcon-brief",
        "Project Falcon pilot brief",
        "s3://globex-docs/projects/falcon-brief.md",
        "2025-09-01T09:00",
        [
            Chunk(
                "Project Falcon tests drone delivery of urgent spare parts inside the Port of Rotterdam: "
                "four drones, 3 km radius, parcels under 2.5 kg. Rafael Costa leads the pilot for the Fleet "
                "team.",
                ("project/falcon", "person/rafael-costa", "team/fleet"),
            ),
            Chunk(
                "Success criteria: 95% of flights within 12 minutes door to door and zero airspace incidents "
                "over 12 weeks. Flights are booked through dispatch-scheduler like any van.",
                ("service/dispatch-scheduler",),
            ),
        ],
    ),
]

RECORDS = [
    record(
        "rec:ticket-cs-2207",
        "Ticket CS-2207 | P1 | Sahara Pharma: reefer container MSKU 448120 temperature excursion to 11 °C at "
        "Rotterdam, vaccines quarantined | assignee Yusuf Demir | status resolved",
        "customer/sahara-pharma",
        "person/yusuf-demir",
        created="2025-11-18T07:30",
        uri="zendesk://globex/CS-2207",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-rt-640",
        "Ticket RT-640 | P1 | route-optimizer returned infeasible routes for 212 vans after the OR-Tools 9.9 "
        "upgrade | assignee Aiko Tanaka | status resolved",
        "service/route-optimizer",
        "person/aiko-tanaka",
        created="2026-01-20T05:00",
        uri="jira://globex/RT-640",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-fl-118",
        "Ticket FL-118 | P2 | fleet-telemetry shows no truck positions since 02:10 UTC; ETAs off by 40 "
        "minutes | assignee Rafael Costa | status resolved",
        "service/fleet-telemetry",
        "person/rafael-costa",
        created="2026-03-09T04:20",
        uri="jira://globex/FL-118",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-wh-930",
        "Ticket WH-930 | P3 | label-service prints GS1-128 barcodes that Northwind Traders' scanners reject "
        "| assignee Marcus Reid | status open",
        "service/label-service",
        "customer/northwind-traders",
        "person/marcus-reid",
        created="2026-04-22T11:15",
        uri="jira://globex/WH-930",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-cu-75",
        "Ticket CU-75 | P2 | Portside Brokers rejects declarations without an EORI number | assignee Priya "
        "Nair | status resolved",
        "vendor/portside",
        "person/priya-nair",
        created="2025-12-09T14:00",
        uri="jira://globex/CU-75",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:chg-880",
        "Change request CHG-880 | move the dispatch-scheduler next-day cut-off from 18:00 to 20:00 | "
        "effective 2026-03-02 | approvers Alice Chen, Sven Larsen | status approved",
        "service/dispatch-scheduler",
        "person/alice-chen",
        "person/sven-larsen",
        created="2026-02-20T10:00",
        uri="servicenow://globex/CHG-880",
        metadata={"system": "changes"},
    ),
    record(
        "rec:action-ai-31",
        "Action item AI-31 | from INC-2026-007 | owner Aiko Tanaka | block route-optimizer releases unless "
        "the 400-day regression suite passes | due 2026-03-15 | status done",
        "incident/inc-2026-007",
        "person/aiko-tanaka",
        "service/route-optimizer",
        sources=("doc:pm-inc-2026-007#c4",),
        created="2026-01-23T10:00",
        uri="jira://globex/AI-31",
        metadata={"system": "action-items"},
    ),
    record(
        "rec:action-ai-52",
        "Action item AI-52 | from INC-2026-022 | owner Rafael Costa | add a dead-letter queue to "
        "fleet-telemetry | status done",
        "incident/inc-2026-022",
        "person/rafael-costa",
        "service/fleet-telemetry",
        sources=("doc:pm-inc-2026-022#c3",),
        uri="jira://globex/AI-52",
        metadata={"system": "action-items"},
    ),
]

ARTIFACTS = [
    artifact(
        "art:runbook-tsdb",
        "Runbook: telemetry-tsdb disk above 85%. 1. Check the size of the current monthly partition. "
        "2. Extend the volume by 200 GB or detach the oldest partition to cold storage. 3. Confirm that "
        "fleet-telemetry write errors drop to zero and replay the dead-letter queue.",
        "datastore/telemetry-tsdb",
        "service/fleet-telemetry",
        sources=("doc:pm-inc-2026-022#c3",),
        uri="https://wiki.globex.internal/runbooks/tsdb-disk",
        metadata={"artifact_type": "runbook"},
    ),
    artifact(
        "art:runbook-solver",
        "Runbook (2025): roll back route-optimizer by pinning ortools==9.7 in requirements.txt and "
        "re-running the nightly plan by hand.",
        "service/route-optimizer",
        status=Status.STALE,
        created="2025-08-05T09:00",
        uri="https://wiki.globex.internal/runbooks/solver-rollback",
        metadata={"artifact_type": "runbook"},
    ),
    artifact(
        "art:runbook-reefer",
        "Runbook: reefer alarm. If a reefer container reports a temperature outside 2-8 °C, move it to "
        "shore power, record the logger file, and call Sahara Pharma quality assurance within 30 minutes.",
        "customer/sahara-pharma",
        sources=("rec:ticket-cs-2207",),
        uri="https://wiki.globex.internal/runbooks/reefer-alarm",
        metadata={"artifact_type": "runbook"},
    ),
]

PROPOSITIONS = [
    prop(
        "p:logistics-old",
        "Sven Larsen leads the Logistics and Routing teams.",
        "person/sven-larsen",
        "team/logistics",
        "team/routing",
        created="2025-07-01T09:00",
        valid_from="2025-06-01T00:00",
    ),
    prop(
        "p:alice-leads",
        "Alice Chen leads the Logistics team since January 2026.",
        "person/alice-chen",
        "team/logistics",
        supersedes=("p:logistics-old",),
        grounds=(("doc:org-2026-01#c1", "From 5 January 2026 Alice Chen leads the Logistics team"),),
        created="2026-01-05T10:00",
        valid_from="2026-01-05T00:00",
        confidence=0.95,
        metadata={"team": "logistics"},
    ),
    prop(
        "p:sven-routing",
        "Sven Larsen manages the Routing team.",
        "person/sven-larsen",
        "team/routing",
        grounds=(("doc:org-2026-01#c1", "Sven Larsen keeps Routing"),),
        valid_from="2026-01-05T00:00",
    ),
    prop(
        "p:priya-customs",
        "Priya Nair leads the Customs team and is the single contact for Portside Brokers.",
        "person/priya-nair",
        "team/customs",
        "vendor/portside",
        grounds=(
            (
                "doc:org-2026-01#c2",
                "Priya Nair leads Customs and becomes the single contact for Portside Brokers",
            ),
        ),
        valid_from="2026-01-05T00:00",
    ),
    prop(
        "p:oliver-platform",
        "Oliver Grant heads the Platform team.",
        "person/oliver-grant",
        "team/platform",
        grounds=(("doc:org-2026-01#c2", "Oliver Grant's Platform team"),),
    ),
    prop(
        "p:portside",
        "customs-broker-api submits declarations through Portside Brokers.",
        "service/customs-broker-api",
        "vendor/portside",
    ),
    prop(
        "p:t1",
        "customs-broker-api files T1 transit declarations for goods moving between bonded warehouses.",
        "service/customs-broker-api",
        metadata={"team": "customs"},
    ),
    prop(
        "p:kestrel-old",
        "Kestrel Trucking pushes GPS pings straight into eta-predictor every 60 seconds.",
        "vendor/kestrel-trucking",
        "service/eta-predictor",
        created="2025-06-20T09:00",
        valid_from="2025-06-01T00:00",
    ),
    prop(
        "p:kestrel-new",
        "Since January 2026 Kestrel Trucking streams GPS pings to fleet-telemetry every 15 seconds.",
        "vendor/kestrel-trucking",
        "service/fleet-telemetry",
        supersedes=("p:kestrel-old",),
        created="2026-01-10T09:00",
        valid_from="2026-01-15T00:00",
    ),
    prop(
        "p:skycast",
        "eta-predictor blends hourly Skycast Weather forecasts into every delivery ETA.",
        "service/eta-predictor",
        "vendor/skycast",
        valid_from="2026-02-01T00:00",
    ),
    prop(
        "p:falcon-pilot",
        "Project Falcon is a drone-delivery pilot for urgent spare parts in the Port of Rotterdam, led by "
        "Rafael Costa.",
        "project/falcon",
        "person/rafael-costa",
        grounds=(("doc:falcon-brief#c1", "Rafael Costa leads the pilot for the Fleet team"),),
        valid_from="2026-02-02T00:00",
        valid_to="2026-04-27T00:00",
    ),
    prop(
        "p:inc007-impact",
        "INC-2026-007 made 1,300 Fjord Foods and Pinecrest Hardware deliveries late on 19 January 2026.",
        "incident/inc-2026-007",
        "customer/fjord-foods",
        "customer/pinecrest-hardware",
        grounds=(("doc:pm-inc-2026-007#c1", "1,300 Fjord Foods and Pinecrest Hardware stops"),),
    ),
    prop(
        "p:inc007-root",
        "INC-2026-007 happened because the OR-Tools 9.9 upgrade turned route-optimizer's hard time windows "
        "into soft penalties.",
        "incident/inc-2026-007",
        "service/route-optimizer",
        grounds=(("doc:pm-inc-2026-007#c3", "turning the hard constraints of the v3 model back into soft"),),
    ),
    prop(
        "p:regression-gate",
        "route-optimizer releases are blocked unless the 400-day regression suite passes, from 15 March "
        "2026.",
        "service/route-optimizer",
        sources=("rec:action-ai-31", "tr:agent-extract-007"),
        grounds=(("rec:action-ai-31", "block route-optimizer releases unless the 400-day regression suite"),),
        created="2026-01-24T09:00",
        valid_from="2026-03-15T00:00",
        metadata={"team": "routing"},
    ),
    prop(
        "p:inc022-root-a",
        "INC-2026-022 was caused by Kestrel Trucking telematics boxes going offline overnight.",
        "incident/inc-2026-022",
        "vendor/kestrel-trucking",
        sources=("rec:ticket-fl-118",),
        created="2026-03-09T05:00",
        confidence=0.5,
    ),
    prop(
        "p:inc022-root-b",
        "INC-2026-022 was caused by a full telemetry-tsdb partition: fleet-telemetry received the pings but "
        "could not store them.",
        "incident/inc-2026-022",
        "datastore/telemetry-tsdb",
        "service/fleet-telemetry",
        contradicts=("p:inc022-root-a",),
        grounds=(
            (
                "doc:pm-inc-2026-022#c2",
                "fleet-telemetry kept accepting GPS pings from the trucks but every write failed",
            ),
        ),
        confidence=0.94,
    ),
    prop(
        "p:dead-letter",
        "fleet-telemetry parks failed GPS writes in a dead-letter queue instead of dropping them.",
        "service/fleet-telemetry",
        sources=("rec:action-ai-52",),
        valid_from="2026-04-01T00:00",
    ),
    prop(
        "p:cutoff-old",
        "dispatch-scheduler locks next-day loads at 18:00 local time.",
        "service/dispatch-scheduler",
        created="2025-08-12T09:00",
        valid_from="2025-08-15T00:00",
    ),
    prop(
        "p:cutoff-new",
        "From 2 March 2026 dispatch-scheduler locks next-day loads at 20:00 local time, giving customers two "
        "more hours to add orders.",
        "service/dispatch-scheduler",
        supersedes=("p:cutoff-old",),
        grounds=(("rec:chg-880", "move the dispatch-scheduler next-day cut-off from 18:00 to 20:00"),),
        created="2026-02-21T09:00",
        valid_from="2026-03-02T00:00",
    ),
    prop(
        "p:crossdock",
        "warehouse-wms has used cross-dock slotting on Rotterdam doors 1-12 since February 2026.",
        "service/warehouse-wms",
        sources=("doc:design-crossdock#c3",),
        valid_from="2026-02-01T00:00",
    ),
    prop(
        "p:chloe-pilot",
        "Chloe Martin runs the Rotterdam door pilot in warehouse-wms for Warehouse Ops.",
        "person/chloe-martin",
        "service/warehouse-wms",
        grounds=(("doc:design-crossdock#c3", "Chloe Martin runs the pilot on doors 1-12"),),
    ),
    prop(
        "p:bob-driver-app",
        "Bob Okafor ships the driver app that uploads proof-of-delivery photos to fleet-telemetry.",
        "person/bob-okafor",
        "service/fleet-telemetry",
    ),
    prop(
        "p:aiko-suite",
        "Aiko Tanaka maintains the 400-day regression suite for route-optimizer.",
        "person/aiko-tanaka",
        "service/route-optimizer",
        grounds=(("doc:design-constraints#c3", "Aiko Tanaka maintains a regression suite"),),
    ),
    prop(
        "p:vaccine-range",
        "Sahara Pharma vaccine shipments must stay between 2 and 8 °C from pickup to delivery.",
        "customer/sahara-pharma",
    ),
    prop(
        "p:inc104",
        "INC-2025-104 put 2,400 Sahara Pharma vaccine doses into quarantine after a cooling failure at "
        "Rotterdam.",
        "incident/inc-2025-104",
        "customer/sahara-pharma",
        sources=("rec:ticket-cs-2207",),
    ),
]

TRACES = [
    trace(
        "tr:agent-extract-007",
        "Agent run 0be4d1 | task: extract commitments from [[doc:pm-inc-2026-007#c4]] | tool read_chunk -> "
        "2 action items | tool propose(text='route-optimizer releases are blocked unless the 400-day "
        "regression suite passes') -> accepted, confidence 0.93 | 2 steps, 1.6 s",
        "service/route-optimizer",
        sources=("doc:pm-inc-2026-007#c4",),
        created="2026-01-23T12:00",
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-eta",
        "Agent run 6f2a90 | question: why were ETAs wrong on 9 March? | tool search(query='ETA wrong "
        "9 March') -> [[rec:ticket-fl-118]] | tool why_explain(id=[[p:inc022-root-b]]) -> grounded in "
        "[[doc:pm-inc-2026-022#c2]] | answer: a full telemetry-tsdb partition dropped truck positions | "
        "3 steps, 2.2 s",
        "datastore/telemetry-tsdb",
        sources=("rec:ticket-fl-118", "p:inc022-root-b", "doc:pm-inc-2026-022#c2"),
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-cutoff",
        "Agent run a81c37 | question: until when can Pinecrest Hardware add orders for tomorrow? | tool "
        "search(query='dispatch-scheduler cut-off') -> [[p:cutoff-new]] | answer: 20:00 local time since "
        "2 March 2026 | 1 step, 0.7 s",
        "customer/pinecrest-hardware",
        "service/dispatch-scheduler",
        sources=("p:cutoff-new",),
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-customs",
        "Agent run 44d0e8 | question: who handles Portside Brokers escalations? | tool search(query="
        "'Portside Brokers contact') -> [[p:priya-customs]] | answer: Priya Nair | 1 step, 0.5 s",
        "vendor/portside",
        "person/priya-nair",
        sources=("p:priya-customs",),
        metadata={"trace_type": "agent"},
    ),
]

WORLD = World(
    context="globex",
    organisation="Globex Freight",
    repo="git://globex/ops-infra",
    teams=TEAMS,
    entities=ENTITIES,
    people=PEOPLE,
    services=SERVICES,
    customers=CUSTOMERS,
    call_chains=CALL_CHAINS,
    specs=(*DOCUMENTS, *RECORDS, *ARTIFACTS, *PROPOSITIONS, *TRACES),
    scenario=Scenario(
        four_hop=(
            "vendor/kestrel-trucking",
            "service/fleet-telemetry",
            "datastore/telemetry-tsdb",
            "service/eta-predictor",
            "vendor/skycast",
        ),
        inactive_shortcut="p:kestrel-old",
        equal_paths=(
            ("customer/fjord-foods", "service/route-optimizer", "datastore/ops-db"),
            ("customer/fjord-foods", "service/warehouse-wms", "datastore/ops-db"),
        ),
        cycle=("service/tracking-api", "service/dispatch-scheduler", "service/route-optimizer"),
        lineage_leaf="p:regression-gate",
        superseded=("p:cutoff-old", "p:cutoff-new"),
        contradicted=("p:inc022-root-a", "p:inc022-root-b"),
        collisions=(
            ("person/alice-chen", "p:alice-leads"),
            ("person/bob-okafor", "p:member/bob-okafor"),
            ("person/priya-nair", "p:priya-customs"),
            ("customer/brightline-retail", "p:uses/brightline-retail/warehouse-wms"),
            ("project/falcon", "p:falcon-pilot"),
            ("team/platform", "p:owns/tracking-api"),
        ),
        lexical=(
            ("reefer temperature excursion", "rec:ticket-cs-2207"),
            ("bonded warehouses T1 transit declarations", "p:t1"),
            ("Alice Chen leads", "p:alice-leads"),
        ),
        document_above_proposition=(
            "cross-dock slotting wave",
            "doc:design-crossdock#c2",
            "p:crossdock",
        ),
    ),
)
