"""Word pools the seeded world draws from. Written for this project; every value is fictional.

Pools are large enough that two seeds rarely share an answer, and no entry of a pool is a
phrase inside another entry of the same pool (the rubric matches whole phrases).
"""

FIRST_NAMES = """Amara Bastian Celeste Dmitri Esperanza Farid Greta Hamish Ingrid Jovan Keiko Lorcan Marisol
Nikhil Oona Pavel Quentin Rosalind Sanjay Tamsin Ulrich Valentina Wendell Ximena Yusuf Zofia Anselm
Beatriz Cormac Delphine Emeka Fenella Gideon Hyacinth Idris Juno Kasimir Leocadia Mattias Nadira
Octavian Philippa Radomir Saoirse Thaddeus Ursula Vikram Wilhelmina Yannick Zainab Alaric Bronagh
Cassius Dagny Evander Fiorella Gunnar Henrietta Ignatius Jessamy Konstantin Lavinia Mireille Nkechi
Orsolya Peregrine Rasmus Sidonie Torvald Umberto Verity Wolfram Xiadani Ysolde Zebulon""".split()

LAST_NAMES = """Abernathy Balogun Castellanos Dunmore Eriksen Fairweather Galbraith Hollingsworth Ishikawa
Jablonski Kowalczyk Lindqvist Marchetti Nakagawa Oyelaran Pemberton Quarshie Rautenbach Szczepanski
Thorvaldsen Underhill Vasquez-Rey Whitcombe Yamaguchi Zielinski Achterberg Bonnefoy Chakraborty
Dragomir Etxeberria Fitzgerald Grimaldi Haverkamp Iordanou Jorgensen Kettering Lachapelle Mbeki-Osei
Nordstrom Okonkwo Petrakis Quintanilla Rosenthal Sandoval Tarkovsky Uchenna Vanterpool Wojcik
Xenakis Yeboah Zamfirescu Aldridge Brannigan Cuthbertson Delacroix Engstrom Falconer Gulbrandsen
Hadjipetrou Ilyasova Jankowska Kilbride Lemaire Mortensen Nwachukwu Ostrowski Pellegrino
Quayle Rasmussen Strachan Tomlinson Ulvaeus Villiers Winterbottom Yardley Zubiri Ashcombe Blackwood
Carrow Dervish""".split()

ROLES = [
    "staff site reliability engineer", "data platform lead", "product designer", "security analyst",
    "engineering manager", "technical writer", "quality assurance lead", "solutions architect",
    "machine learning engineer", "database administrator", "frontend engineer", "release manager",
    "compliance officer", "customer success manager", "developer advocate", "performance engineer",
    "network engineer", "mobile developer", "data scientist", "delivery coordinator",
    "principal backend engineer", "cloud cost analyst", "accessibility specialist", "build engineer",
    "incident commander", "platform product manager", "localization manager", "research scientist",
]

TEAMS = """Atlas Beacon Cobalt Driftwood Ember Fjord Granite Harbor Ironbark Juniper Keystone Lantern
Meridian Nimbus Obsidian Pinnacle Quarry Riverstone Sextant Tamarack Umber Vanguard Willow Zephyr""".split()

CITIES = """Lisbon Tallinn Montreal Porto Kraków Valencia Ljubljana Rotterdam Gothenburg Wellington Accra
Medellín Bratislava Tbilisi Halifax Bergen Nagoya Adelaide Kaunas Trieste Cork Leipzig Aarhus Bilbao
Brno Graz Quito Oaxaca Tartu Dunedin Hobart Tampere Utrecht Ghent Lyon Malmö Plovdiv Cluj-Napoca""".split()

CODENAMES = """Kestrel Osprey Basalt Heron Quartz Lynx Marten Cormorant Feldspar Ibis Puffin Garnet Tanager
Wren Saltmarsh Bittern Corvid Kingfisher Jasper Merganser Nightjar Plover Shrike Avocet
Curlew Dunlin Gannet Hoopoe Jacana Lapwing Magpie Nuthatch Oriole Petrel Redstart Siskin Teal Vireo
Waxwing Zircon Beryl Malachite Peridot Spinel Tourmaline""".split()

STATUSES = ["planning", "in design", "in development", "in code review", "in QA testing",
            "blocked on legal review", "paused for budget", "in beta", "shipped to production"]

SERVICES = """payments-api search-indexer notification-hub ledger-service avatar-resizer geo-lookup
invoice-renderer session-broker catalog-sync fraud-scorer export-worker audit-trail feature-gate
quota-keeper webhook-relay report-builder identity-gateway media-transcoder price-engine
shipment-tracker""".split()

LANGUAGES = ["Go", "Rust", "Kotlin", "Elixir", "TypeScript", "Scala", "Java", "Python", "OCaml", "Clojure"]
DATABASES = ["PostgreSQL", "MySQL", "CockroachDB", "Cassandra", "MongoDB", "ClickHouse", "DynamoDB",
             "MariaDB", "ScyllaDB", "Neo4j"]

HOST_PREFIXES = ["db", "web", "api", "cache", "queue", "bastion", "build", "edge", "search", "etl",
                 "vault", "mail"]

CLUSTERS = """orion vega lyra draco cygnus perseus auriga carina corvus hydra lupus norma pavo
pyxis sagitta tucana volans columba""".split()
ENVS = ["prod", "staging", "analytics", "sandbox"]

PRODUCTS = """Quillnote Brightdesk Tidepool Fernway Clearbook Stackhouse Moonlet Pathwise Hivemind-Go
Sproutly Driftboard Lumenpay Cartwheel Inkwell-Pro Tallyho Greenlight-Hub""".split()
NEIGHBOURHOODS = ["Riverside", "Old Quarter", "Hillcrest", "Docklands", "Market Square", "Northgate",
                  "Willow Park", "Canal District", "Stonebridge", "Harbourview", "Elm Terrace", "Foxhollow"]
VENDORS = ["Brightwire", "Kettleworks", "Northwind Supply", "Parcelgrid", "Stellar Freight", "Oakline",
           "Copperleaf", "Bluefin Logistics", "Ridgeway Partners", "Tidewater Systems"]
FRIEND_NAMES = ["Auntie Marguerite", "cousin Tobias", "my neighbour Ilse", "my old flatmate Rory",
                "my climbing partner Suvi", "my brother-in-law Declan", "my friend Oksana", "my mentor Bertrand"]

PETS = ["Biscuit", "Pepper", "Marmalade", "Muffin", "Waffles", "Pistachio", "Clementine", "Noodle",
        "Bramble", "Truffle", "Sprocket", "Dumpling", "Chutney", "Pickle", "Gnocchi", "Saffron"]
CARS = ["green Volvo estate", "red Fiat Panda", "silver Skoda Octavia", "white Kia Niro",
        "blue Subaru Forester", "black Renault Clio", "yellow Citroën Berlingo", "grey Toyota Prius"]
COFFEES = ["flat white", "oat cortado", "double espresso", "iced americano", "chai latte", "macchiato",
           "cold brew", "mocha with extra cocoa"]
COMMUTES = ["cargo bike", "night tram", "ferry", "electric scooter", "commuter train", "carpool van"]

PLANTS = ["fiddle-leaf fig", "jade plant", "string-of-pearls", "bird's nest fern", "ponytail palm",
          "peace lily", "snake plant", "zebra cactus"]
PLANT_NAMES = ["Gerald", "Sir Leafalot", "Mildred", "Captain Fronds", "Pip", "Barnaby", "Ottoline",
               "Mr Prickles", "Dorothea", "Wobble"]
CODEWORDS = ["blue heron", "paper lantern", "copper kettle", "midnight orchard", "silver comet",
             "quiet harbor", "velvet anchor", "amber tide", "glass meadow", "iron tulip"]
BOOKS = [("The Lighthouse Ledger", "Imelda Strand"), ("Salt and Circuitry", "Okoro Finch"),
         ("A Map of Small Rivers", "Helene Vasko"), ("Winter in the Server Room", "Tobiah Rusk"),
         ("The Cartographer's Cat", "Miren Alcott"), ("Nine Bridges North", "Caspar Ilori"),
         ("Quiet Engines", "Roswitha Dahl"), ("The Orchard Protocol", "Benedek Sarr")]
