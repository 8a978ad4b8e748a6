"""The facts behind the contrast set (``benchmarks.contrast``): 25 small, invented subjects, each with
one date, one person, one figure and one stated condition, and the one-atom changes made to them.
Written for this set; no sentence comes from a public benchmark."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ITEMS", "Item"]


@dataclass(frozen=True)
class Item:
    name: str
    """The subject, as a sentence names it ("The Alder Street Library")."""
    opened: str
    """What happened on the date ("opened", "was launched")."""
    date: str
    wrong_date: str
    year: str
    role: str
    """What the person did, as a participle ("designed")."""
    title: str
    person: str
    swapped: str
    figure: str
    """The sentence stating the figure, with ``{n}`` where the figure goes."""
    n: str
    wrong_n: str
    condition: str
    """A stated condition, as a clause after the subject ("is closed on Sundays")."""
    flipped: str
    """The same clause negated or turned to its opposite ("is open on Sundays")."""
    filler: str
    """A sentence of other detail the answers never mention."""
    addition: str
    """A claim the context never makes, added to the verbatim answer."""


ITEMS: tuple[Item, ...] = (
    Item("The Alder Street Library", "opened", "14 March 2011", "14 March 2001", "2011", "designed", "the architect",
         "Clara Voss", "Maria Lang", "It holds about {n} books.", "42,000", "24,000",
         "is closed on Sundays", "is open on Sundays", "A reading garden lies behind the building.",
         "Books can be borrowed for three weeks and renewed twice."),
    Item("The Millbrook footbridge", "opened to the public", "2 May 1998", "2 May 1989", "1998", "designed",
         "the engineer", "Tomas Reyes", "Henrik Olsen", "It is {n} metres long.", "140", "410",
         "is lit at night", "is not lit at night", "Its steel deck hangs from a single white arch.",
         "It was repainted in 2015 at a cost of $2 million."),
    Item("The Harlow Maritime Museum", "opened", "9 June 2004", "9 June 2014", "2004", "founded", "the historian",
         "Ruth Okafor", "Janet Pryce", "Admission costs ${n} for adults.", "14", "41",
         "is free for children", "is not free for children", "Its largest exhibit is a restored fishing boat.",
         "Around 80,000 people visit it every year."),
    Item("Brightwater Foods", "was founded", "1 February 1987", "1 February 1978", "1987", "founded",
         "the chef", "Samuel Achebe", "Peter Lindqvist", "The company employs {n} people.", "1,250", "2,150",
         "is based in Leeds", "is not based in Leeds", "It sells soups and sauces to supermarkets.",
         "Its revenue reached £90 million in 2020."),
    Item("St Ives Community Hospital", "opened", "23 October 1995", "23 October 1959", "1995", "led", "the surgeon",
         "Amira Haddad", "Lucy Brandt", "It has {n} beds.", "180", "810",
         "is open around the clock", "is not open around the clock", "A helicopter pad was added on the roof.",
         "It treats about 40,000 patients a year."),
    Item("The Kestrel Park stadium", "opened", "5 August 2006", "5 August 2016", "2006", "designed",
         "the architect", "Jonas Weber", "Ivan Petrov", "It seats {n} spectators.", "32,000", "23,000",
         "is covered by a roof", "is not covered by a roof", "The pitch is natural grass.",
         "A museum of the club's history opened inside it in 2012."),
    Item("The research ship Aurora Borealis", "was launched", "17 April 2019", "17 April 2009", "2019", "commanded",
         "the captain", "Ingrid Solberg", "Karen Hughes", "It carries a crew of {n}.", "48", "84",
         "is powered by diesel engines", "is not powered by diesel engines", "It has a moon pool for launching robots.",
         "It cost €120 million to build."),
    Item("The Riverside Jazz Festival", "was first held", "12 July 1992", "12 July 1982", "1992", "organised",
         "the saxophonist", "Marcus Bell", "Omar Farouk", "It draws about {n} visitors each summer.", "60,000",
         "16,000", "is held outdoors", "is not held outdoors", "Concerts take place on three stages by the river.",
         "Tickets for the whole weekend cost $150."),
    Item("Greenfield Primary School", "opened", "4 September 1972", "4 September 1927", "1972", "led",
         "the headteacher", "Margaret Doyle", "Susan Clarke", "It teaches {n} pupils.", "320", "230",
         "is closed in August", "is open in August", "The playground was rebuilt with a climbing wall.",
         "Its pupils learn two foreign languages from the age of six."),
    Item("Hollins Wood park", "opened", "30 May 1935", "30 May 1953", "1935", "laid out", "the gardener",
         "Edwin Marsh", "Arthur Finch", "It covers {n} hectares.", "26", "62",
         "is closed to cars", "is open to cars", "An old oak in its centre is over 400 years old.",
         "A boating lake was dug in its north corner."),
    Item("The Lyric Theatre", "opened", "11 November 1921", "11 November 1912", "1921", "designed",
         "the architect", "Frank Matcham", "George Holloway", "It has {n} seats.", "1,100", "1,010",
         "is owned by the city council", "is not owned by the city council", "Its ceiling is painted with clouds.",
         "Its orchestra pit was enlarged in 1990."),
    Item("The Carrow Hill observatory", "opened", "21 June 1968", "21 June 1986", "1968", "built", "the astronomer",
         "Helen Sato", "Nadia Kowalski", "Its main telescope has a mirror {n} metres wide.", "2.4", "4.2",
         "is open to visitors on Fridays", "is closed to visitors on Fridays", "It stands 900 metres above the sea.",
         "It discovered a comet in 1977."),
    Item("The Castlebay ferry line", "began service", "3 April 2002", "3 April 2012", "2002", "started",
         "the businessman", "Duncan MacLeod", "Robert Fraser", "The crossing takes {n} minutes.", "95", "59",
         "runs in winter", "does not run in winter", "Its two boats are named after local islands.",
         "A single ticket costs £18."),
    Item("Old Mill Brewery", "was founded", "15 January 2014", "15 January 2004", "2014", "founded",
         "the brewer", "Priya Nair", "Emma Walsh", "It brews {n} litres of beer a week.", "8,000", "18,000",
         "is open for tours", "is not open for tours", "Its best known beer is a dark stout.",
         "It won a national award for its lager in 2019."),
    Item("Terminal 3 at Westport Airport", "opened", "28 February 2009", "28 February 1999", "2009", "designed",
         "the architect", "Kenji Mori", "David Chen", "It handles {n} million passengers a year.", "12", "21",
         "is served by a rail link", "is not served by a rail link", "Its roof is made of timber and glass.",
         "It has 45 shops and restaurants."),
    Item("The Halley Ridge research station", "opened", "19 January 1997", "19 January 1979", "1997", "led",
         "the glaciologist", "Anna Berg", "Sofia Marin", "It houses {n} scientists in winter.", "16", "61",
         "is built on stilts", "is not built on stilts", "Supplies arrive by plane twice a month.",
         "Its power comes entirely from wind turbines."),
    Item("Dunmore Zoo", "opened", "6 May 1964", "6 May 1946", "1964", "founded", "the vet", "Patrick Byrne",
         "Liam Kelly", "It keeps {n} species.", "230", "320", "is open on Christmas Day",
         "is closed on Christmas Day", "Its oldest resident is a tortoise.",
         "A new penguin pool opened in 2021."),
    Item("The Northgate Symphony Orchestra", "gave its first concert", "8 December 1951", "8 December 1915", "1951",
         "conducted", "the conductor", "Elena Varga", "Maria Costa", "It has {n} musicians.", "85", "58",
         "is funded by the city", "is not funded by the city", "It plays most of its concerts in the town hall.",
         "It tours Japan every other year."),
    Item("The Fenwick railway line", "opened", "1 August 1887", "1 August 1878", "1887", "engineered",
         "the engineer", "Isaac Thornton", "William Hale", "It is {n} kilometres long.", "37", "73",
         "is electrified", "is not electrified", "It crosses the valley on a stone viaduct.",
         "Its trains run every twenty minutes."),
    Item("The Kelda Dam", "was completed", "13 September 1979", "13 September 1997", "1979", "designed",
         "the engineer", "Olga Ivanova", "Irene Novak", "It holds back {n} million cubic metres of water.", "150",
         "510", "is open to walkers", "is closed to walkers", "A small power station sits at its foot.",
         "Its lake is stocked with trout every spring."),
    Item("The Point Ross lighthouse", "was first lit", "25 March 1858", "25 March 1885", "1858", "built",
         "the engineer", "Alan Stevenson", "James Walker", "It is {n} metres tall.", "36", "63",
         "is automated", "is not automated", "Its keepers' cottages are now holiday homes.",
         "Its lamp can be seen from 40 kilometres away."),
    Item("Les Vignes Hautes vineyard", "was planted", "10 April 1983", "10 April 1938", "1983", "planted",
         "the winemaker", "Claire Dubois", "Sophie Martin", "It covers {n} hectares of slopes.", "18", "81",
         "is farmed organically", "is not farmed organically", "Its cellar is cut into the rock.",
         "It produces 90,000 bottles a year."),
    Item("The Ledger accounting app", "was released", "7 October 2015", "7 October 2005", "2015", "developed",
         "the developer", "Ravi Patel", "Arjun Mehta", "It has {n} paying users.", "250,000", "520,000",
         "is free for students", "is not free for students", "It runs on phones and in the browser.",
         "A version for large companies costs $30 a month."),
    Item("The Skylark weather satellite", "was launched", "22 November 2017", "22 November 2007", "2017",
         "designed", "the engineer", "Laura Fischer", "Julia Becker", "It orbits {n} kilometres above the Earth.",
         "820", "280", "is powered by solar panels", "is not powered by solar panels",
         "It photographs the whole planet every day.", "It is expected to work until 2035."),
    Item("The Coastal Marathon", "was first run", "16 October 1983", "16 October 1993", "1983", "organised",
         "the runner", "Grace Mensah", "Alice Moore", "About {n} runners take part each year.", "9,000", "6,000",
         "is run in October", "is not run in October", "The course follows the cliffs for most of its length.",
         "The winner receives a prize of €5,000."),
)
