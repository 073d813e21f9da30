"""The words the offline backend understands. Documented in the README ("Offline vocabulary")."""
from __future__ import annotations

import re

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "both": 2, "twin": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "several": 3, "multiple": 3,
    "many": 4, "few": 3, "couple": 2, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "sixty": 60, "ninety": 90,
}

# Words that show the request is about an RTS game at all.
GAME_WORDS = {
    "defend", "defence", "defense", "attack", "attacks", "wave", "waves", "enemy", "enemies", "army", "armies",
    "units", "unit", "base", "bases", "front", "fronts", "survive", "produce", "build", "destroy", "team",
    "teams", "battle", "fight", "free-for-all", "ffa", "kill", "kills", "zone", "raid", "raids", "raiders", "siege", "turret",
    "turrets", "tank", "tanks", "bot", "bots", "artillery", "air", "scout", "scouting", "commander",
    "storage", "storages", "extractor", "extractors", "bridge", "fortified", "fortification", "hold",
    "capture", "assault", "allies", "allied", "reinforcements", "reserve", "v", "vs", "versus", "win",
    "lose", "economy", "metal", "energy", "fog", "skirmish", "rts", "game", "scenario", "mission",
    "troops", "soldiers", "defenders", "attackers", "bomber", "bombers", "fighter", "fighters", "aa",
    "flank", "flanks", "outpost", "outposts", "faction", "factions", "players", "probe", "raiding", "harassed",
    "three-way", "four-way", "five-way", "3-way", "4-way", "5-way", "hill", "engineer", "aircraft", "push",
    "escort", "convoy", "vip", "ambush", "ambushes", "extraction", "patrols",
}

# Concept -> trigger phrases (matched on word boundaries, lower case).
ARCHETYPE_TRIGGERS = {
    "production": ["produce", "build up", "composition", "as fast as possible", "economy", "tech up"],
    "ffa": ["free-for-all", "free for all", "ffa", "ranked", "every team for itself", "every player for themself",
            "every player for themselves", "every player for himself", "everyone for themselves",
            "every man for himself", "every faction for itself", "each for their own", "all against all",
            "everyone against everyone", "against each other", "against one another", "fight each other",
            "three-way", "four-way", "five-way", "six-way", "seven-way", "eight-way", "3-way", "4-way", "5-way",
            "6-way", "7-way", "8-way", "last one standing", "last army standing", "last man standing",
            "last faction standing", "every side for itself",
            "every army for itself", "each side for itself", "each army for itself", "no alliances", "no allies",
            "without alliances", "without allies", "nobody teams up", "no teaming"],
    "teams": ["2v2", "3v3", "team battle", "allies controlled", "allied ai", "teams of"],
    "siege": ["destroy the enemy", "breach", "fortified", "siege", "break the", "assault the base"],
    "capture": ["capture", "king of the hill", "king-of-the-hill", "hold the zone", "control point", "control points", "capture points",
                "strongpoint", "strongpoints", "central zone", "hold the centre",
                "hold the center", "hold the middle", "control the centre", "control the center", "take and hold",
                "seize", "occupy", "hold the hill", "hold the point", "hold the plaza", "control the zone",
                "keep the zone", "stay in the zone", "hold the objective"],
    "raids": ["raid", "raiders", "harass", "raiding", "harassed", "air raids"],
    # the default family: named so that a request without any of these words is not built as a defence
    "defense": ["defend", "defence", "defense", "survive", "hold out", "protect", "prepare for", "withstand",
                "repel", "fend off", "hold the line", "hold the bridge", "hold off", "hold your ground",
                "keep alive", "must survive", "guard", "reserve", "waves", "attacks", "assault", "attack", "wave",
                "push"],
}

UNIT_KIND_TRIGGERS = {
    "artillery": ["artillery"],
    "air": ["air assault", "air raid", "air attack", "bomber", "bombers", "aircraft", "air units", "from the air"],
    "tank": ["tank", "tanks", "armor", "armour", "vehicle", "vehicles"],
    "bot": ["bot", "bots", "infantry"],
    "heavy": ["heavy"],
    "raider": ["raider", "raiders", "fast bots", "quick bots", "speedy bots", "fast enemy bots", "quick enemy bots",
               "fast units", "quick units"],
    "commander": ["enemy commander", "their commander"],
}

# The enemy's timing is left to chance ("may raid you at any time").
RANDOM_TIMING_TRIGGERS = ["at any time", "any time", "anytime", "at random times", "at a random time", "randomly",
                          "unpredictable", "unpredictably", "without warning", "without any warning", "with no warning",
                          "unannounced"]

OBJECTIVE_TYPES = {
    "metal storage": "metal_storage", "metal storages": "metal_storage", "storage": "metal_storage",
    "storages": "metal_storage", "extractor": "metal_extractor", "extractors": "metal_extractor",
    "energy storage": "energy_storage", "solar": "solar_collector", "commander": "commander",
    "base": "metal_storage", "bases": "metal_storage", "hq": "commander", "headquarters": "commander",
    "depot": "metal_storage", "depots": "metal_storage", "turret": "light_turret", "radar tower": "radar_tower",
    "radar towers": "radar_tower", "radar": "radar_tower", "radars": "radar_tower", "factory": "bot_lab",
    "factories": "bot_lab", "solar collector": "solar_collector", "solar collectors": "solar_collector",
}

MAP_HINTS = {
    "bridge": "river_bridges", "river": "river_bridges", "corridor": "two_front_corridor",
    "crossroads": "crossroads", "plateau": "plateau_fortress", "fortified": "plateau_fortress",
    "fortress": "plateau_fortress", "hilltop": "plateau_fortress", "hill": "plateau_fortress", "summit": "plateau_fortress",
    "high ground": "plateau_fortress", "arena": "four_corner_arena", "four corners": "four_corner_arena",
    "open field": "open_field",
}
# Built-in maps the offline designs do not place on (too large for their timings): named, reported, not used.
UNBUILT_MAPS = {"wilderness": "the offline designs do not build on the 256x256 wilderness map (their timings fail "
                              "its distances)"}

PRODUCIBLE_NAMES = {
    "heavy assault bot": "heavy_assault_bot", "assault bot": "assault_bot", "light bot": "light_bot",
    "heavy tank": "heavy_tank", "light tank": "light_tank", "artillery": "artillery_bot",
    "bomber": "bomber", "fighter": "fighter", "scout": "scout", "aa vehicle": "aa_vehicle",
    "rocket bot": "rocket_bot",
}

# Named sides: compass points (any spelling) and flanks as the player faces the enemy.
COMPASS = {"north": "n", "south": "s", "east": "e", "west": "w", "northeast": "ne", "northwest": "nw",
           "southeast": "se", "southwest": "sw"}
FLANK_WORDS = ("flank", "flanks", "wing", "side", "lane")

# Roster synonyms beyond the catalog's own names ("Light Tank", "light_tank").
UNIT_SYNONYMS = {
    "tank": "light_tank", "tanks": "light_tank", "raider": "raider_bot", "raiders": "raider_bot",
    "artillery": "artillery_bot", "sniper": "sniper_bot", "engineer": "constructor_bot", "builder": "constructor_bot",
    "constructor": "constructor_bot", "mex": "metal_extractor", "mexes": "metal_extractor", "extractor": "metal_extractor",
    "mine": "metal_extractor", "solar": "solar_collector", "solar panel": "solar_collector", "collector": "solar_collector",
    "solars": "solar_collector", "radar": "radar_tower", "radar dish": "radar_tower", "radar dishes": "radar_tower", "fusion": "fusion_reactor", "turret": "light_turret",
    "storage": "metal_storage", "factory": "bot_lab", "factories": "bot_lab", "plane": "fighter",
    "gunship": "bomber", "infantry": "assault_bot", "bot": "light_bot", "bots": "light_bot",
    "anti-air turret": "aa_turret", "anti-air tower": "aa_turret", "anti-air emplacement": "aa_turret",
    "anti-air gun": "aa_turret", "lookout": "scout", "spotter": "scout", "anti-air vehicle": "aa_vehicle", "heavy gun": "heavy_turret",
    "anti-air": "aa_vehicle", "anti-air unit": "aa_vehicle", "aa unit": "aa_vehicle", "flak": "aa_vehicle",
    "artillery battery": "long_range_cannon", "artillery batteries": "long_range_cannon", "hq": "commander",
    # units named by size or by what they carry, as people say them
    "small bot": "light_bot", "little bot": "light_bot", "small tank": "light_tank", "little tank": "light_tank",
    "big tank": "heavy_tank", "large tank": "heavy_tank", "big bot": "assault_bot", "rocket guy": "rocket_bot",
    "rocket trooper": "rocket_bot", "rocket infantry": "rocket_bot", "missile bot": "rocket_bot",
    "gun tower": "light_turret", "guard tower": "light_turret", "gun turret": "light_turret",
    "listening post": "radar_tower", "radar station": "radar_tower", "radar post": "radar_tower",
    "sensor tower": "radar_tower", "headquarters": "commander",
    # buildings named by what they do: the roster's power and mining buildings, its gun emplacement
    "power generator": "fusion_reactor", "generator": "fusion_reactor", "power plant": "fusion_reactor",
    "reactor": "fusion_reactor", "mining site": "metal_extractor", "mining post": "metal_extractor",
    "gun emplacement": "light_turret",
    # the common nouns of other RTS games for the same roles: workers, barracks, riflemen, bunkers, aircraft
    "worker": "constructor_bot", "peon": "constructor_bot", "harvester": "constructor_vehicle",
    "truck": "constructor_vehicle", "supply truck": "constructor_vehicle", "barracks": "bot_lab",
    "war factory": "vehicle_plant", "tank factory": "vehicle_plant", "vehicle factory": "vehicle_plant",
    "airfield": "air_plant", "air base": "air_plant", "airbase": "air_plant", "hangar": "air_plant",
    "rifleman": "assault_bot", "riflemen": "assault_bot", "soldier": "assault_bot", "trooper": "assault_bot",
    "marine": "assault_bot", "grunt": "assault_bot", "footman": "assault_bot", "footmen": "assault_bot",
    "bunker": "light_turret", "pillbox": "light_turret", "pillboxes": "light_turret", "cannon": "heavy_turret",
    "command center": "commander", "command centre": "commander", "command post": "commander",
    "refinery": "metal_storage", "refineries": "metal_storage", "silo": "metal_storage",
    "aircraft": "fighter", "jet": "fighter", "artillery piece": "artillery_bot", "recon unit": "scout",
}

# An escort: a unit brought somewhere alive. Words that name the game, and the unit a convoy is.
ESCORT_WORDS = ["convoy", "convoys", "vip", "extraction point", "extraction zone", "evac point", "evacuation point",
                "escort mission", "needs an escort", "need an escort", "needs escorting", "to be escorted"]
ESCORT_VERBS = ["escort", "escorting", "bring", "get", "take", "lead", "drive", "move", "deliver", "transport", "guide",
                "walk", "shepherd", "march", "ferry", "carry", "haul", "usher", "accompany", "steer", "smuggle", "sneak"]
# the escort verbs as a request conjugates them ("marching my commander", "getting him there", "brought")
_IRREGULAR = {"get": ["got", "gotten"], "take": ["took", "taken"], "lead": ["led"], "bring": ["brought"],
              "drive": ["drove", "driven"]}


def _conjugated(verb: str) -> list[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    double = verb + verb[-1] if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", verb) else stem
    third = verb[:-1] + "ies" if verb.endswith("y") else verb + "es" if verb.endswith(("sh", "ch", "ss")) else verb + "s"
    past = verb[:-1] + "ied" if verb.endswith("y") else stem + "ed" if not verb.endswith("e") else verb + "d"
    return [verb, third, double + "ing", *_IRREGULAR.get(verb, [past])]


ESCORT_VERB_FORMS = sorted({f for v in ESCORT_VERBS if v != "escorting" for f in _conjugated(v)}, key=len, reverse=True)
CONVOY_WORDS = ["convoy", "convoys", "truck", "trucks", "lorry", "lorries", "supply wagon", "supply wagons", "wagon",
                "wagons"]
CONVOY_UNIT = "constructor_vehicle"
AMBUSH_WORDS = ["ambush", "ambushes", "ambushed", "ambushers", "patrol", "patrols", "lying in wait", "lie in wait",
                "hiding", "hidden", "along the way", "along the route", "on the way", "en route", "jump him", "jump her",
                "jump it", "jump them", "pounce", "pounces", "spring on", "springs on", "attackers",
                "lurking", "lurks", "lurk", "waylay", "waylaid", "bushwhack", "bushwhackers"]

# Goals the offline backend has no design for: a clause asking for one is reported, and a request whose
# game is one of them is refused rather than built as something else.
UNSUPPORTED_GOALS = ["assassinate", "assassination", "rescue", "steal", "stealing", "theft",
                     "stealth", "sneak", "infiltrate", "kidnap", "hostage", "hostages", "deliver", "transport",
                     "evacuate", "heal", "repair", "naval", "ships", "submarine", "submarines", "boats", "nuke",
                     "nuclear", "teleport", "teleporters", "teleporting", "day-night", "weather", "hero", "heroes",
                     "spell", "spells", "magic", "dragon", "dragons", "zombie", "zombies", "tower defense",
                     "diplomacy", "peace treaty", "treaty", "negotiate", "negotiation", "negotiating", "trade", "trading", "bribe", "betray", "betrays", "traitor", "mind control",
                     "invisible", "cloaked", "cloak", "decoy", "decoys", "flee", "flees", "reinforcement"]

# Games and activities that are not a real-time strategy scenario: a request built around one is refused,
# whatever RTS-sounding words come with it ("blinds doubling every 10 hands" are no escalating waves).
OTHER_GAMES = ["poker", "hold'em", "holdem", "blackjack", "chess", "checkers", "draughts", "sudoku", "crossword",
               "mahjong", "bridge tournament", "card game", "board game", "racing game", "platformer", "trivia",
               "quiz", "karaoke", "bingo", "roulette", "tic-tac-toe", "minesweeper", "tetris"]

# Natural hazards: the offline backend has no design for them (a real model can write a rule); a time or
# interval in their clause times the hazard, never an enemy attack.
HAZARDS = ["meteor", "meteors", "meteorite", "asteroid", "flood", "floods", "flooding", "bursts its banks",
           "lava", "volcano", "eruption", "earthquake", "earthquakes", "storm", "storms", "blizzard", "tornado",
           "lightning", "wildfire", "avalanche", "acid rain", "poison gas", "toxic gas", "radiation", "sandstorm",
           "tsunami", "landslide"]

# Requests the offline backend refuses to put into rule scripts.
FORBIDDEN_RULE_WORDS = ["os.", "io.", "os ", "io ", "require", "loadstring", "load(", "dofile", "debug.",
                        "execute", "shell", "file system", "filesystem", "read files", "delete files", "popen"]

# Telling English from other Latin-script languages: frequent function words and numbers that are not
# also English words (no "a", "in", "die", "do", "per", "van", "on"). A request with more of these than
# of ENGLISH_FUNCTION_WORDS (function words plus a few words every request uses) is read as not English.
FOREIGN_FUNCTION_WORDS = {
    # French
    "le", "la", "les", "des", "du", "et", "une", "avec", "contre", "pour", "dans", "sur", "vos", "votre", "chaque",
    "deux", "trois", "quatre", "cinq", "vagues", "défendez", "défendre",
    # Spanish / Portuguese / Italian
    "el", "los", "las", "del", "y", "con", "contra", "para", "por", "una", "uno", "dos", "tres", "cuatro", "cada",
    "tu", "sus", "em", "um", "uma", "com", "duas", "il", "di", "che", "gli", "della", "tre", "ogni", "oleadas",
    "ondas", "ondate",
    # German / Dutch
    "der", "das", "und", "mit", "gegen", "von", "zu", "ein", "eine", "zwei", "drei", "vier", "jede", "deine",
    "het", "een", "en", "tegen", "twee", "drie", "met",
}
ENGLISH_FUNCTION_WORDS = {
    "the", "and", "with", "against", "of", "to", "from", "for", "your", "you", "at", "by", "each", "every",
    "that", "then", "while", "before", "after", "until", "into", "one", "two", "three", "four", "five", "is",
    "are", "must", "can", "only", "no", "not", "as", "its", "their", "waves", "enemy", "defend",
}
