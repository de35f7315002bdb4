// lang_fr.c: French as mkcorpus writes it: common words roughly by falling
// frequency (all of them in Latin-1, so no "œ"), names with accents and their
// ASCII spellings, set phrases, charsets and time zones.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "de", "la", "le", "et", "les", "des", "en", "un", "du", "une", "que", "est", "pour", "qui",
    "dans", "à", "par", "plus", "pas", "au", "sur", "ne", "se", "vous", "nous", "il", "ce", "avec",
    "sont", "mais", "on", "ou", "être", "avoir", "faire", "bien", "merci", "réunion", "projet",
    "semaine", "demain", "aujourd'hui", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "pièce",
    "jointe", "document", "fichier", "rapport", "compte", "rendu", "dossier", "client", "équipe",
    "société", "bureau", "prochain", "prochaine", "déjà", "très", "peu", "beaucoup", "tout", "tous",
    "toute", "même", "encore", "aussi", "après", "avant", "depuis", "pendant", "entre", "chez",
    "sans", "sous", "vers", "comme", "quand", "où", "si", "donc", "alors", "car", "puis", "ensuite",
    "enfin", "vraiment", "peut", "doit", "faut", "voir", "savoir", "pouvoir", "venir", "aller",
    "prendre", "mettre", "dire", "trouver", "donner", "envoyer", "recevoir", "répondre",
    "confirmer", "question", "réponse", "problème", "solution", "erreur", "modification",
    "changement", "version", "mise", "jour", "année", "mois", "heure", "heures", "minutes", "matin",
    "soir", "midi", "temps", "fois", "date", "délai", "coût", "prix", "budget", "facture",
    "paiement", "commande", "livraison", "contrat", "devis", "proposition", "offre", "idée",
    "exemple", "point", "partie", "cas", "raison", "résultat", "résultats", "données", "système",
    "serveur", "logiciel", "accès", "mot", "passe", "utilisateur", "sécurité", "lien", "page",
    "site", "adresse", "téléphone", "numéro", "ville", "rue", "train", "vol", "hôtel", "voyage",
    "vacances", "famille", "enfants", "maison", "météo", "café", "déjeuner", "dîner", "soirée",
    "été", "hiver", "printemps", "automne", "janvier", "février", "avril", "juin", "août",
    "décembre", "Noël", "anniversaire", "nouveau", "nouvelle", "grand", "grande", "petit", "petite",
    "bon", "bonne", "important", "dernier", "dernière", "premier", "première", "possible",
    "disponible", "nécessaire", "prêt", "simple", "rapide", "ensemble", "ici", "là", "plutôt",
    "environ", "seulement", "toujours", "jamais", "souvent", "parfois", "bientôt", "tard", "tôt",
    "leur", "notre", "nos", "votre", "vos", "mon", "ma", "mes", "son", "sa", "ses", "cette", "ces",
    "elle", "ils", "elles", "je", "tu", "lui", "moi", "fait", "dit", "reçu", "envoyé", "validé",
    "signé", "prévu", "annulé", "reporté", "collègue", "collègues", "directeur", "responsable",
    "service", "stage", "étudiant", "université", "cours", "examen", "recherche", "thèse",
    "conférence", "présentation", "ordre", "objet", "suite", "retour", "avis", "accord", "besoin",
    "aide", "élément", "étape", "étapes", "ça",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ré", "con", "tion", "ment", "par", "é", "ville", "eau", "ière", "ois", "ma", "bel", "cha",
    "teau", "mon", "dé", "ri", "lan", "gne", "sau", "pré", "vau", "lle", "quet", "fon", "tai", "ro",
    "ber", "gé", "mi", "sson", "nard",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"François", "francois"}, {"Jean", "jean"}, {"Pierre", "pierre"}, {"Marie", "marie"},
    {"Sophie", "sophie"}, {"Camille", "camille"}, {"Léa", "lea"}, {"Chloé", "chloe"},
    {"Élodie", "elodie"}, {"Hélène", "helene"}, {"Céline", "celine"}, {"Nicolas", "nicolas"},
    {"Julien", "julien"}, {"Mathieu", "mathieu"}, {"Antoine", "antoine"}, {"Thomas", "thomas"},
    {"Émilie", "emilie"}, {"Isabelle", "isabelle"}, {"Nathalie", "nathalie"},
    {"Stéphane", "stephane"}, {"Jérôme", "jerome"}, {"Frédéric", "frederic"},
    {"Sébastien", "sebastien"}, {"Aurélie", "aurelie"}, {"Gaëlle", "gaelle"}, {"Loïc", "loic"},
    {"Noémie", "noemie"}, {"Benoît", "benoit"}, {"Anaïs", "anais"}, {"Théo", "theo"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"Martin", "martin"}, {"Bernard", "bernard"}, {"Dubois", "dubois"}, {"Thomas", "thomas"},
    {"Robert", "robert"}, {"Richard", "richard"}, {"Petit", "petit"}, {"Durand", "durand"},
    {"Leroy", "leroy"}, {"Moreau", "moreau"}, {"Simon", "simon"}, {"Laurent", "laurent"},
    {"Lefèvre", "lefevre"}, {"Michel", "michel"}, {"Garcia", "garcia"}, {"Bertrand", "bertrand"},
    {"Roux", "roux"}, {"Vincent", "vincent"}, {"Fournier", "fournier"}, {"Morel", "morel"},
    {"Girard", "girard"}, {"André", "andre"}, {"Lefebvre", "lefebvre"}, {"Mercier", "mercier"},
    {"Dupont", "dupont"}, {"Lambert", "lambert"}, {"Bonnet", "bonnet"}, {"Chevalier", "chevalier"},
    {"Rousseau", "rousseau"}, {"Hébert", "hebert"},
};
// clang-format on

static const char *const domains[] = {"societe.example", "laposte.example", "orange.example",
                                      "asso.example", "univ-sud.example"};

static const char *const greetings[] = {"Bonjour %s,", "Salut %s,", "Bonsoir %s,",
                                        "Bonjour à tous,", "Cher %s,"};
static const char *const closings[] = {"Cordialement,", "Bien à vous,", "Bonne journée,",
                                       "À bientôt,", "Merci d'avance,"};
static const char *const titles[] = {"Chef de projet", "Ingénieur logiciel",
                                     "Directrice commerciale", "Assistante de direction",
                                     "Chargé d'études"};
static const char *const original_labels[] = {"De :", "Envoyé :", "À :", "Objet :"};

static const unsigned charset_weights[MKC_CS_COUNT] = {[MKC_CS_UTF_8] = 55,
                                                       [MKC_CS_ISO_8859_1] = 20,
                                                       [MKC_CS_ISO_8859_15] = 15,
                                                       [MKC_CS_WINDOWS_1252] = 10};

static const int tz_minutes[] = {60, 120, 60, -240};

static const struct mkc_mailing_list lists[] = {
    {"equipe", "listes.asso.example", "Liste de l'equipe"},
    {"annonces", "listes.asso.example", "Annonces"},
};

const struct mkc_lang_data mkc_lang_fr = {
    .code = "fr-FR",
    .label = "French",
    .spaced = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "Société Exemple SA",
    .attribution = "Le %d/%m/%Y à %H:%M, %n a écrit :",
    .original_message = "-----Message d'origine-----",
    .original_labels = original_labels,
    .reply_prefix = "RE : ",
    .forward_prefix = "TR : ",
    .sentence_end = ".",
    .question_end = " ?",
    .comma = ",",
    .quote_open = "« ",
    .quote_close = " »",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
