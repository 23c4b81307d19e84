"""Acme Pay: a European fintech (card issuing, a charge API, fraud scoring, KYC and a double-entry ledger).

Graph design, which ``known`` and the tests rely on:
- the only ACTIVE route from Cardstream Processing to the auditor Kessler & Moore is
  cardstream -> card-issuing -> events-bus -> ledger-core -> kessler-moore (4 hops); the superseded
  "SFTP straight to ledger-core" fact would make it 2 hops if non-ACTIVE edges were followed;
- Quanta Games reaches feature-store through kyc-service and through fraud-scoring (two 2-hop paths);
- api-edge -> payments-gateway -> notification-hub -> api-edge is a call cycle.
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
    Entity("team/payments", "Payments", "Team"),
    Entity("team/risk", "Risk", "Team"),
    Entity("team/ledger", "Ledger", "Team"),
    Entity("team/platform", "Platform", "Team"),
    Entity("team/identity", "Identity", "Team"),
    Entity("team/partnerships", "Partnerships", "Team"),
    Entity("team/data", "Data", "Team"),
)

ENTITIES = (
    Entity("datastore/pay-db", "pay-db", "Datastore"),
    Entity("datastore/events-bus", "events-bus", "Datastore"),
    Entity("datastore/feature-store", "feature-store", "Datastore"),
    Entity("datastore/ledger-db", "ledger-db", "Datastore"),
    Entity("vendor/cardstream", "Cardstream Processing", "Vendor"),
    Entity("vendor/veriid", "VeriID", "Vendor"),
    Entity("vendor/kessler-moore", "Kessler & Moore", "Vendor"),
    Entity("incident/inc-2026-014", "INC-2026-014", "Incident"),
    Entity("incident/inc-2025-088", "INC-2025-088", "Incident"),
    Entity("incident/inc-2026-031", "INC-2026-031", "Incident"),
    Entity("project/falcon", "Project Falcon", "Project"),
)

PEOPLE = (
    Person("alice-chen", "Alice Chen", "Engineering Manager", "payments", "Berlin", "2021-04-12", "E-1043"),
    Person(
        "carmen-ruiz", "Carmen Ruiz", "Senior Backend Engineer", "payments", "Madrid", "2023-01-16", "E-1262"
    ),
    Person(
        "bob-okafor", "Bob Okafor", "Site Reliability Engineer", "platform", "Lisbon", "2022-09-01", "E-1187"
    ),
    Person(
        "kenji-watanabe",
        "Kenji Watanabe",
        "Platform Engineer",
        "platform",
        "Amsterdam",
        "2023-05-08",
        "E-1290",
    ),
    Person("dmitri-volkov", "Dmitri Volkov", "Staff Engineer", "ledger", "Berlin", "2020-11-02", "E-0871"),
    Person("hannah-becker", "Hannah Becker", "Backend Engineer", "ledger", "Berlin", "2025-07-01", "E-1544"),
    Person("priya-nair", "Priya Nair", "Head of Identity", "identity", "London", "2022-03-07", "E-1120"),
    Person("grace-liu", "Grace Liu", "Engineering Manager", "risk", "London", "2021-08-23", "E-1071"),
    Person("tomas-herrera", "Tomás Herrera", "Risk Data Scientist", "risk", "Madrid", "2024-02-19", "E-1408"),
    Person(
        "lena-fischer", "Lena Fischer", "Account Manager", "partnerships", "Munich", "2022-06-13", "E-1151"
    ),
    Person(
        "nadia-haddad", "Nadia Haddad", "Account Manager", "partnerships", "Paris", "2024-10-14", "E-1479"
    ),
    Person("marcus-reid", "Marcus Reid", "Head of Data", "data", "Dublin", "2020-03-30", "E-0802"),
)

SERVICES = (
    Service(
        "payments-gateway",
        "payments",
        "go1.22",
        "the card and bank-transfer charge API",
        350,
        (
            ("service/fraud-scoring", "asks for a risk score from"),
            ("datastore/pay-db", "stores charges and idempotency keys in"),
            ("service/notification-hub", "emits charge status changes to"),
        ),
    ),
    Service(
        "card-issuing",
        "payments",
        "kotlin-jvm21",
        "virtual and physical card issuance and authorisation",
        500,
        (
            ("datastore/pay-db", "keeps card and cardholder records in"),
            ("datastore/events-bus", "publishes authorisation and settlement events to"),
        ),
    ),
    Service(
        "fraud-scoring",
        "risk",
        "python3.12",
        "real-time fraud scores for every authorisation",
        120,
        (("datastore/feature-store", "reads merchant and device features from"),),
    ),
    Service(
        "kyc-service",
        "identity",
        "java21",
        "identity verification for merchants and cardholders",
        2000,
        (("datastore/feature-store", "writes verification outcomes as features to"),),
    ),
    Service(
        "ledger-core",
        "ledger",
        "rust1.78",
        "the double-entry ledger behind every balance",
        200,
        (
            ("datastore/events-bus", "consumes settlement events from"),
            ("datastore/ledger-db", "persists journal entries in"),
        ),
    ),
    Service(
        "reconciliation-batch",
        "ledger",
        "python3.12",
        "the nightly settlement reconciliation job",
        60000,
        (
            ("service/ledger-core", "compares bank statements against balances from"),
            ("datastore/ledger-db", "reads journal snapshots from"),
        ),
    ),
    Service(
        "api-edge",
        "platform",
        "go1.22",
        "the public REST gateway for merchants",
        80,
        (("service/payments-gateway", "routes /v1/charges requests to"),),
    ),
    Service(
        "notification-hub",
        "platform",
        "node20",
        "merchant webhooks and e-mail receipts",
        1000,
        (("service/api-edge", "delivers merchant webhooks through the egress pool of"),),
    ),
)

CUSTOMERS = (
    Customer(
        "northwind-bank",
        "Northwind Bank",
        "ACC-2231",
        "banking",
        "Enterprise",
        "EUR 1.2M",
        (("card-issuing", "its corporate card programme"),),
        "lena-fischer",
        "2026-09-30",
    ),
    Customer(
        "brightline-retail",
        "Brightline Retail",
        "ACC-2307",
        "retail",
        "Growth",
        "EUR 420k",
        (("payments-gateway", "online checkout in 14 EU markets"),),
        "lena-fischer",
        "2026-06-30",
    ),
    Customer(
        "helios-travel",
        "Helios Travel",
        "ACC-2415",
        "travel",
        "Enterprise",
        "EUR 880k",
        (
            ("payments-gateway", "multi-currency flight and hotel bookings"),
            ("fraud-scoring", "chargeback protection on bookings"),
        ),
        "nadia-haddad",
        "2027-01-31",
    ),
    Customer(
        "quanta-games",
        "Quanta Games",
        "ACC-2502",
        "gaming",
        "Growth",
        "EUR 310k",
        (("kyc-service", "player age verification"), ("fraud-scoring", "screening in-game purchases")),
        "nadia-haddad",
        "2026-11-15",
    ),
    Customer(
        "orbit-mobility",
        "Orbit Mobility",
        "ACC-2611",
        "mobility",
        "Enterprise",
        "EUR 650k",
        (("api-edge", "ride payments at up to 600 requests per second"),),
        "lena-fischer",
        "2026-12-31",
    ),
)

CALL_CHAINS = (
    ("POST /v1/charges", ("api-edge", "payments-gateway", "fraud-scoring")),
    ("POST /v1/charges", ("api-edge", "payments-gateway", "notification-hub")),
    ("POST /v1/cards", ("api-edge", "card-issuing")),
    ("POST /v1/verifications", ("api-edge", "kyc-service")),
    ("GET /v1/balances", ("api-edge", "ledger-core")),
    ("POST /internal/settlements", ("card-issuing", "ledger-core")),
)

DOCUMENTS = [
    *document(
        "doc:design-idempotency",
        "Design: idempotent charge API",
        "s3://acme-docs/design/idempotent-charges.md",
        "2025-09-15T10:00",
        [
            Chunk(
                "Context. Merchants retry POST /v1/charges when they see a timeout, and payments-gateway "
                "cannot tell a retry from a new charge. In 2025 this produced 37 duplicate charges a month, "
                "each refunded by hand by the Payments team.",
                ("service/payments-gateway", "team/payments"),
            ),
            Chunk(
                "Proposal. Every charge request carries an Idempotency-Key header. payments-gateway stores "
                "the key with the response in pay-db for 24 hours and replays the stored response for any "
                "retry with the same key. Requests without a key are accepted during a grace period and "
                "rejected after it ends.",
                ("service/payments-gateway", "datastore/pay-db"),
            ),
            Chunk(
                "Rollout. Phase 1 logs missing keys per merchant; phase 2 returns a warning header; phase 3 "
                "rejects keyless retries. Carmen Ruiz owns the rollout and Alice Chen signs off each phase.",
                ("person/carmen-ruiz", "person/alice-chen"),
            ),
        ],
    ),
    *document(
        "doc:pm-inc-2026-014",
        "Postmortem INC-2026-014: duplicate charges for Northwind Bank cardholders",
        "s3://acme-docs/postmortems/inc-2026-014.md",
        "2026-02-20T15:00",
        [
            Chunk(
                "Summary. On 14 February 2026 between 09:12 and 10:47 UTC, 1,842 Northwind Bank cardholders "
                "were charged twice for the same purchase during INC-2026-014. Severity 1. All duplicates "
                "were refunded within 36 hours.",
                ("incident/inc-2026-014", "customer/northwind-bank"),
            ),
            Chunk(
                "Timeline. 09:05 a pay-db failover made writes stall for 40 seconds. 09:12 payments-gateway "
                "timeouts rose to 8%. 09:20 Bob Okafor was paged. 10:31 retries were disabled at api-edge. "
                "10:47 the duplicate rate was back to zero.",
                ("datastore/pay-db", "service/payments-gateway", "person/bob-okafor", "service/api-edge"),
            ),
            Chunk(
                "Root cause. The idempotency design requires an Idempotency-Key on every charge, but phase 3 "
                "had never shipped: payments-gateway still accepted keyless retries, so every charge retried "
                "after the failover was processed as a new one. The card network and Cardstream Processing "
                "behaved correctly.",
                ("service/payments-gateway", "vendor/cardstream"),
                ("doc:design-idempotency#c2",),
            ),
            Chunk(
                "Action items. AI-77: payments-gateway rejects keyless retries (owner Carmen Ruiz, due "
                "30 April 2026). AI-78: alert when the duplicate-charge rate exceeds 0.1% for five minutes "
                "(owner Bob Okafor). AI-79: rehearse pay-db failover under load every quarter.",
                ("service/payments-gateway", "person/carmen-ruiz", "person/bob-okafor", "datastore/pay-db"),
                ("doc:pm-inc-2026-014#c3",),
            ),
        ],
    ),
    *document(
        "doc:adr-012",
        "ADR-012: route Cardstream settlement through card-issuing",
        "s3://acme-docs/adr/adr-012-cardstream-settlement.md",
        "2026-01-20T11:00",
        [
            Chunk(
                "Status: accepted, 20 January 2026. Context: Cardstream Processing drops nightly settlement "
                "files on an SFTP server that ledger-core polls. Files arrive late twice a month and a "
                "missing file blocks the whole ledger close.",
                ("vendor/cardstream", "service/ledger-core"),
            ),
            Chunk(
                "Decision: from 1 February 2026 Cardstream Processing delivers settlement data only to "
                "card-issuing over its streaming API. card-issuing validates each batch and publishes "
                "settlement events to events-bus, where ledger-core consumes them like any other posting.",
                ("vendor/cardstream", "service/card-issuing", "datastore/events-bus", "service/ledger-core"),
                ("doc:adr-012#c1",),
            ),
        ],
    ),
    *document(
        "doc:org-2026-03",
        "Engineering org update - March 2026",
        "s3://acme-docs/org/2026-03.md",
        "2026-03-02T09:00",
        [
            Chunk(
                "From 1 March 2026 Alice Chen leads the Payments team. Carmen Ruiz, who led Payments in the "
                "interim since October, returns to full-time work on the idempotency rollout.",
                ("person/alice-chen", "team/payments", "person/carmen-ruiz"),
            ),
            Chunk(
                "Priya Nair continues to head Identity and takes over the VeriID contract from Procurement. "
                "Grace Liu's Risk team will publish fraud model release notes in the #risk-releases channel.",
                ("person/priya-nair", "team/identity", "vendor/veriid", "person/grace-liu", "team/risk"),
            ),
        ],
    ),
    *document(
        "doc:pm-inc-2025-088",
        "Postmortem INC-2025-088: SEPA settlements posted after the T+1 cutoff",
        "s3://acme-docs/postmortems/inc-2025-088.md",
        "2025-11-10T14:00",
        [
            Chunk(
                "Summary. During INC-2025-088 on 3 November 2025 reconciliation-batch finished at 07:40 CET, "
                "after the T+1 cutoff, so 12,400 SEPA settlements were booked a day late and 31 merchants "
                "saw wrong available balances.",
                ("incident/inc-2025-088", "service/reconciliation-batch"),
            ),
            Chunk(
                "Root cause. ledger-db hit its provisioned IOPS limit during month-end compaction; journal "
                "snapshot reads slowed from 4 to 55 minutes. Nobody was alerted because the IOPS alarm "
                "pointed at a decommissioned volume.",
                ("datastore/ledger-db",),
            ),
            Chunk(
                "Action items. AI-41: provision 6,000 IOPS for ledger-db and alert at 80% (owner Bob "
                "Okafor). AI-42: Hannah Becker to split the matching step so reconciliation-batch can resume "
                "after a failure.",
                (
                    "datastore/ledger-db",
                    "person/bob-okafor",
                    "person/hannah-becker",
                    "service/reconciliation-batch",
                ),
                ("doc:pm-inc-2025-088#c2",),
            ),
        ],
    ),
    *document(
        "doc:design-falcon",
        "Project Falcon: an event-sourced ledger",
        "s3://acme-docs/design/project-falcon.md",
        "2026-01-12T10:00",
        [
            Chunk(
                "Goal. Project Falcon replaces nightly batch postings in ledger-core with an append-only "
                "event log, so balances are correct within seconds instead of the next morning.",
                ("project/falcon", "service/ledger-core"),
            ),
            Chunk(
                "Migration. During migration a shadow ledger runs beside ledger-core. Every posting is a "
                "dual-write: the legacy journal and the shadow ledger both record it, and a replay job "
                "rebuilds the shadow ledger from events-bus to prove the replay matches. The dual-write "
                "stays on until the shadow ledger matches for 30 consecutive days, and any replay mismatch "
                "blocks cut-over.",
                ("service/ledger-core", "datastore/events-bus"),
                ("doc:design-falcon#c1",),
            ),
            Chunk(
                "Ownership. Dmitri Volkov is the technical lead; Marcus Reid sponsors the project and "
                "reports progress to the board every month. Target: cut-over by the end of Q3 2026.",
                ("person/dmitri-volkov", "person/marcus-reid"),
            ),
        ],
    ),
]

RECORDS = [
    record(
        "rec:ticket-pay-4312",
        "Ticket PAY-4312 | P1 | Northwind Bank reports cardholders charged twice on 14 Feb 2026 | "
        "assignee Carmen Ruiz | status resolved",
        "customer/northwind-bank",
        "person/carmen-ruiz",
        created="2026-02-14T09:40",
        uri="jira://acme/PAY-4312",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-idn-877",
        "Ticket IDN-877 | P2 | Quanta Games: age verification stuck in 'pending' for 3,900 players while "
        "VeriID was down | assignee Priya Nair | status resolved",
        "customer/quanta-games",
        "vendor/veriid",
        "person/priya-nair",
        created="2026-04-07T16:20",
        uri="jira://acme/IDN-877",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-led-301",
        "Ticket LED-301 | P2 | SEPA settlement file for 3 Nov 2025 posted after the T+1 cutoff | assignee "
        "Dmitri Volkov | status resolved",
        "person/dmitri-volkov",
        created="2025-11-03T08:05",
        uri="jira://acme/LED-301",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-plt-1290",
        "Ticket PLT-1290 | P3 | api-edge returns 429 to Orbit Mobility above 200 rps despite the negotiated "
        "limit | assignee Kenji Watanabe | status resolved",
        "service/api-edge",
        "customer/orbit-mobility",
        "person/kenji-watanabe",
        created="2026-01-27T13:10",
        uri="jira://acme/PLT-1290",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:ticket-rsk-552",
        "Ticket RSK-552 | P3 | Helios Travel asks why bookings scored 0.85 go to manual review | assignee "
        "Tomás Herrera | status open",
        "customer/helios-travel",
        "person/tomas-herrera",
        created="2026-02-03T10:45",
        uri="jira://acme/RSK-552",
        metadata={"system": "tickets"},
    ),
    record(
        "rec:chg-5521",
        "Change request CHG-5521 | HSM key ceremony for card PIN encryption | card-issuing | scheduled "
        "2026-06-09 09:00 UTC | approvers Alice Chen, Priya Nair | status approved",
        "service/card-issuing",
        "person/alice-chen",
        "person/priya-nair",
        created="2026-05-12T14:00",
        uri="servicenow://acme/CHG-5521",
        metadata={"system": "changes"},
    ),
    record(
        "rec:action-ai-77",
        "Action item AI-77 | from INC-2026-014 | owner Carmen Ruiz | payments-gateway rejects keyless "
        "retries | due 2026-04-30 | status in progress",
        "incident/inc-2026-014",
        "person/carmen-ruiz",
        "service/payments-gateway",
        sources=("doc:pm-inc-2026-014#c4",),
        created="2026-02-21T10:00",
        uri="jira://acme/AI-77",
        metadata={"system": "action-items"},
    ),
    record(
        "rec:action-ai-41",
        "Action item AI-41 | from INC-2025-088 | owner Bob Okafor | provision 6,000 IOPS for ledger-db "
        "and alert at 80% | status done",
        "incident/inc-2025-088",
        "person/bob-okafor",
        "datastore/ledger-db",
        sources=("doc:pm-inc-2025-088#c3",),
        uri="jira://acme/AI-41",
        metadata={"system": "action-items"},
    ),
]

ARTIFACTS = [
    artifact(
        "art:runbook-duplicates",
        "Runbook: duplicate charge spike. 1. Open the payments-gateway golden signals dashboard and "
        "confirm the duplicate-charge rate. 2. If pay-db failed over in the last 15 minutes, disable "
        "automatic charge retries at api-edge (flag edge.retries.charges=false). 3. Page the Payments "
        "on-call and start an incident.",
        "service/payments-gateway",
        "datastore/pay-db",
        "service/api-edge",
        "team/payments",
        sources=("doc:pm-inc-2026-014#c4",),
        uri="https://wiki.acme.internal/runbooks/duplicate-charges",
        metadata={"artifact_type": "runbook"},
    ),
    artifact(
        "art:runbook-veriid",
        "Runbook: VeriID degraded. Switch kyc-service to deferred mode (KYC_DEFERRED=1) so sign-ups "
        "continue and checks queue up; once VeriID recovers, drain the queue at 50 checks per second.",
        "service/kyc-service",
        "vendor/veriid",
        sources=("p:inc031",),
        uri="https://wiki.acme.internal/runbooks/veriid-degraded",
        metadata={"artifact_type": "runbook"},
    ),
    artifact(
        "art:runbook-sftp",
        "Runbook (2025): ledger-core missed the Cardstream Processing SFTP file. 1. Check /inbound/"
        "cardstream on sftp-01. 2. Ask Cardstream support to resend. 3. Re-run the ledger-core file poller "
        "by hand before 06:00 CET.",
        "service/ledger-core",
        "vendor/cardstream",
        status=Status.STALE,
        created="2025-07-22T09:00",
        uri="https://wiki.acme.internal/runbooks/cardstream-sftp",
        metadata={"artifact_type": "runbook"},
    ),
]

PROPOSITIONS = [
    prop(
        "p:carmen-led",
        "Carmen Ruiz leads the Payments team as interim manager.",
        "person/carmen-ruiz",
        "team/payments",
        created="2025-10-03T09:00",
        valid_from="2025-10-01T00:00",
    ),
    prop(
        "p:alice-leads",
        "Alice Chen leads the Payments team since March 2026.",
        "person/alice-chen",
        "team/payments",
        supersedes=("p:carmen-led",),
        grounds=(("doc:org-2026-03#c1", "From 1 March 2026 Alice Chen leads the Payments team"),),
        created="2026-03-02T10:00",
        valid_from="2026-03-01T00:00",
        confidence=0.95,
        metadata={"team": "payments"},
    ),
    prop(
        "p:priya-heads",
        "Priya Nair heads the Identity team and owns the VeriID contract.",
        "person/priya-nair",
        "team/identity",
        "vendor/veriid",
        grounds=(
            (
                "doc:org-2026-03#c2",
                "Priya Nair continues to head Identity and takes over the VeriID contract",
            ),
        ),
        valid_from="2026-03-01T00:00",
        metadata={"team": "identity"},
    ),
    prop(
        "p:grace-risk",
        "Grace Liu manages the Risk team, which owns fraud model releases.",
        "person/grace-liu",
        "team/risk",
        grounds=(("doc:org-2026-03#c2", "Grace Liu's Risk team will publish fraud model release notes"),),
        metadata={"team": "risk"},
    ),
    prop(
        "p:veriid",
        "kyc-service sends passport and ID-card checks to VeriID.",
        "service/kyc-service",
        "vendor/veriid",
    ),
    prop(
        "p:ofac",
        "kyc-service refreshes the OFAC and EU sanctions screening lists every 6 hours.",
        "service/kyc-service",
        metadata={"team": "identity"},
    ),
    prop(
        "p:cardstream-old",
        "Cardstream Processing sends nightly settlement files straight to ledger-core over SFTP.",
        "vendor/cardstream",
        "service/ledger-core",
        created="2025-07-10T09:00",
        valid_from="2025-07-01T00:00",
    ),
    prop(
        "p:cardstream-new",
        "Since February 2026 Cardstream Processing delivers settlement data only to card-issuing, which "
        "republishes it as settlement events.",
        "vendor/cardstream",
        "service/card-issuing",
        supersedes=("p:cardstream-old",),
        grounds=(
            (
                "doc:adr-012#c2",
                "from 1 February 2026 Cardstream Processing delivers settlement data only to card-issuing",
            ),
        ),
        created="2026-01-21T09:00",
        valid_from="2026-02-01T00:00",
    ),
    prop(
        "p:auditor",
        "Kessler & Moore audit the ledger-core balances every quarter for the e-money licence.",
        "vendor/kessler-moore",
        "service/ledger-core",
        valid_from="2026-01-01T00:00",
    ),
    prop(
        "p:falcon-goal",
        "Project Falcon moves ledger-core from nightly batch postings to an append-only event log.",
        "project/falcon",
        "service/ledger-core",
        grounds=(
            (
                "doc:design-falcon#c1",
                "Project Falcon replaces nightly batch postings in ledger-core with an append-only event log",
            ),
        ),
        valid_from="2026-01-12T00:00",
    ),
    prop(
        "p:falcon-lead",
        "Dmitri Volkov is the technical lead of Project Falcon.",
        "person/dmitri-volkov",
        "project/falcon",
        grounds=(("doc:design-falcon#c3", "Dmitri Volkov is the technical lead"),),
    ),
    prop(
        "p:falcon-sponsor",
        "Marcus Reid sponsors Project Falcon and reports its progress to the board monthly.",
        "person/marcus-reid",
        "project/falcon",
        grounds=(("doc:design-falcon#c3", "Marcus Reid sponsors the project"),),
    ),
    prop(
        "p:falcon-shadow",
        "Project Falcon keeps a shadow ledger running until cut-over in Q3 2026.",
        "project/falcon",
        sources=("doc:design-falcon#c2",),
    ),
    prop(
        "p:inc014-impact",
        "INC-2026-014 charged 1,842 Northwind Bank cardholders twice between 09:12 and 10:47 UTC on "
        "14 February 2026.",
        "incident/inc-2026-014",
        "customer/northwind-bank",
        grounds=(("doc:pm-inc-2026-014#c1", "1,842 Northwind Bank cardholders were charged twice"),),
    ),
    prop(
        "p:inc014-root-a",
        "INC-2026-014 was caused by Cardstream Processing sending duplicate authorisation messages.",
        "incident/inc-2026-014",
        "vendor/cardstream",
        sources=("rec:ticket-pay-4312",),
        created="2026-02-14T11:30",
        confidence=0.55,
    ),
    prop(
        "p:inc014-root-b",
        "INC-2026-014 was caused by payments-gateway accepting keyless retries after a pay-db failover, "
        "not by the card network.",
        "incident/inc-2026-014",
        "service/payments-gateway",
        "datastore/pay-db",
        contradicts=("p:inc014-root-a",),
        grounds=(("doc:pm-inc-2026-014#c3", "payments-gateway still accepted keyless retries"),),
        confidence=0.93,
    ),
    prop(
        "p:inc014-refunds",
        "Carmen Ruiz coordinated the refunds for INC-2026-014; every duplicate was reversed within 36 hours.",
        "person/carmen-ruiz",
        "incident/inc-2026-014",
        grounds=(("doc:pm-inc-2026-014#c1", "All duplicates were refunded within 36 hours"),),
    ),
    prop(
        "p:idempotency-enforced",
        "payments-gateway must reject charge retries without an Idempotency-Key header from 30 April 2026.",
        "service/payments-gateway",
        sources=("rec:action-ai-77", "tr:agent-extract-014"),
        grounds=(("rec:action-ai-77", "payments-gateway rejects keyless retries"),),
        created="2026-02-22T09:00",
        valid_from="2026-04-30T00:00",
        metadata={"team": "payments"},
    ),
    prop(
        "p:fraud-threshold-old",
        "fraud-scoring declines every authorisation with a risk score above 0.92.",
        "service/fraud-scoring",
        created="2025-08-04T09:00",
        valid_from="2025-08-01T00:00",
        metadata={"team": "risk"},
    ),
    prop(
        "p:fraud-threshold-new",
        "Since 12 January 2026 fraud-scoring declines authorisations scoring above 0.88 and sends scores "
        "between 0.80 and 0.88 to manual review.",
        "service/fraud-scoring",
        supersedes=("p:fraud-threshold-old",),
        created="2026-01-09T09:00",
        valid_from="2026-01-12T00:00",
        metadata={"team": "risk"},
    ),
    prop(
        "p:tomas-model",
        "Tomás Herrera retrained the fraud-scoring model on Q4 2025 chargebacks, lifting precision from "
        "0.81 to 0.86.",
        "person/tomas-herrera",
        "service/fraud-scoring",
        created="2026-01-08T15:00",
    ),
    prop(
        "p:inc031",
        "During INC-2026-031 VeriID returned HTTP 503 for 47 minutes and kyc-service queued 3,900 "
        "verifications.",
        "incident/inc-2026-031",
        "vendor/veriid",
        "service/kyc-service",
        sources=("rec:ticket-idn-877",),
        created="2026-04-08T09:00",
    ),
    prop(
        "p:kenji-oncall",
        "Kenji Watanabe is the primary on-call engineer for api-edge in the week of 16 March 2026.",
        "person/kenji-watanabe",
        "service/api-edge",
        created="2026-03-13T17:00",
        valid_from="2026-03-16T08:00",
        valid_to="2026-03-23T08:00",
    ),
    prop(
        "p:bob-gamedays",
        "Bob Okafor runs the quarterly failover game days for pay-db.",
        "person/bob-okafor",
        "datastore/pay-db",
    ),
    prop(
        "p:pay-db-failover",
        "pay-db fails over to its eu-west-1b replica in about 40 seconds.",
        "datastore/pay-db",
        grounds=(("doc:pm-inc-2026-014#c2", "a pay-db failover made writes stall for 40 seconds"),),
    ),
    prop(
        "p:hannah-recon",
        "Hannah Becker split the reconciliation-batch matching step, cutting the nightly run from 3h10m "
        "to 48 minutes.",
        "person/hannah-becker",
        "service/reconciliation-batch",
        grounds=(("doc:pm-inc-2025-088#c3", "Hannah Becker to split the matching step"),),
        created="2026-01-28T11:00",
    ),
    prop(
        "p:inc088",
        "INC-2025-088 delayed 12,400 SEPA settlements because reconciliation-batch finished after the "
        "T+1 cutoff.",
        "incident/inc-2025-088",
        "service/reconciliation-batch",
        grounds=(("doc:pm-inc-2025-088#c1", "12,400 SEPA settlements were booked a day late"),),
    ),
    prop(
        "p:orbit-limit",
        "api-edge allows Orbit Mobility 600 requests per second instead of the default 200.",
        "service/api-edge",
        "customer/orbit-mobility",
        sources=("rec:ticket-plt-1290",),
        valid_from="2026-02-01T00:00",
    ),
    prop(
        "p:brightline-3ds",
        "Brightline Retail turned on 3-D Secure 2 in payments-gateway for all EU checkouts in April 2026.",
        "customer/brightline-retail",
        "service/payments-gateway",
        created="2026-04-03T10:00",
        valid_from="2026-04-01T00:00",
    ),
]

TRACES = [
    trace(
        "tr:agent-extract-014",
        "Agent run 5d1e77 | task: extract commitments from [[doc:pm-inc-2026-014#c4]] | tool read_chunk -> "
        "3 action items | tool propose(text='payments-gateway must reject charge retries without an "
        "Idempotency-Key header') -> accepted, confidence 0.91 | 2 steps, 1.8 s",
        "service/payments-gateway",
        sources=("doc:pm-inc-2026-014#c4",),
        created="2026-02-21T12:00",
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-oncall",
        "Agent run 9a04c2 | question: who is on call for api-edge this week? | tool search(query='api-edge "
        "on-call', kinds=proposition) -> [[p:kenji-oncall]] | answer: Kenji Watanabe until 23 March 2026 | "
        "1 step, 0.6 s",
        "service/api-edge",
        "person/kenji-watanabe",
        sources=("p:kenji-oncall",),
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-refunds",
        "Agent run 31bb9e | question: how many Northwind Bank cardholders were charged twice in February? | "
        "tool search(query='Northwind duplicate charges') -> [[p:inc014-impact]], [[rec:ticket-pay-4312]] | "
        "answer: 1,842 cardholders, all refunded within 36 hours | 2 steps, 1.1 s",
        "customer/northwind-bank",
        sources=("p:inc014-impact", "rec:ticket-pay-4312"),
        metadata={"trace_type": "agent"},
    ),
    trace(
        "tr:agent-sepa",
        "Agent run c7730f | question: why were SEPA settlements late on 3 November? | tool why_explain(id="
        "[[p:inc088]]) -> grounded in [[doc:pm-inc-2025-088#c1]] | tool search(query='ledger-db IOPS') -> "
        "[[doc:pm-inc-2025-088#c2]] | answer: ledger-db hit its IOPS limit during month-end compaction | "
        "3 steps, 2.4 s",
        "datastore/ledger-db",
        sources=("p:inc088", "doc:pm-inc-2025-088#c2"),
        metadata={"trace_type": "agent"},
    ),
]

WORLD = World(
    context="acme",
    organisation="Acme Pay",
    repo="git://acme/platform-infra",
    teams=TEAMS,
    entities=ENTITIES,
    people=PEOPLE,
    services=SERVICES,
    customers=CUSTOMERS,
    call_chains=CALL_CHAINS,
    specs=(*DOCUMENTS, *RECORDS, *ARTIFACTS, *PROPOSITIONS, *TRACES),
    scenario=Scenario(
        four_hop=(
            "vendor/cardstream",
            "service/card-issuing",
            "datastore/events-bus",
            "service/ledger-core",
            "vendor/kessler-moore",
        ),
        inactive_shortcut="p:cardstream-old",
        equal_paths=(
            ("customer/quanta-games", "service/fraud-scoring", "datastore/feature-store"),
            ("customer/quanta-games", "service/kyc-service", "datastore/feature-store"),
        ),
        cycle=("service/api-edge", "service/payments-gateway", "service/notification-hub"),
        lineage_leaf="p:idempotency-enforced",
        superseded=("p:fraud-threshold-old", "p:fraud-threshold-new"),
        contradicted=("p:inc014-root-a", "p:inc014-root-b"),
        collisions=(
            ("person/alice-chen", "p:alice-leads"),
            ("person/bob-okafor", "p:member/bob-okafor"),
            ("person/priya-nair", "p:priya-heads"),
            ("customer/brightline-retail", "p:uses/brightline-retail/payments-gateway"),
            ("project/falcon", "p:falcon-goal"),
            ("team/platform", "p:owns/api-edge"),
        ),
        lexical=(
            ("HSM key ceremony PIN encryption", "rec:chg-5521"),
            ("OFAC sanctions screening lists", "p:ofac"),
            ("Alice Chen leads", "p:alice-leads"),
        ),
        document_above_proposition=(
            "shadow ledger dual-write replay",
            "doc:design-falcon#c2",
            "p:falcon-shadow",
        ),
    ),
)
