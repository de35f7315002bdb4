// lang_ru.c: Russian as mkcorpus writes it: common words roughly by falling
// frequency (all of them in KOI8-R and Windows-1251), names with their
// transliterations and feminine surnames, set phrases, charsets, time zones.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "и", "в", "не", "на", "я", "что", "с", "он", "а", "как", "это", "по", "но", "к", "у", "из",
    "за", "от", "то", "о", "мы", "вы", "так", "же", "все", "для", "она", "бы", "только", "уже",
    "или", "мне", "было", "вот", "если", "есть", "да", "нет", "они", "его", "её", "когда", "даже",
    "ну", "ли", "до", "вас", "нас", "там", "тут", "где", "надо", "ещё", "при", "тоже", "очень",
    "можно", "нужно", "будет", "был", "была", "были", "быть", "год", "день", "время", "работа",
    "проект", "встреча", "неделя", "завтра", "сегодня", "вчера", "понедельник", "вторник", "среда",
    "четверг", "пятница", "спасибо", "пожалуйста", "вопрос", "вопросы", "ответ", "письмо", "файл",
    "документ", "отчёт", "договор", "счёт", "оплата", "заказ", "доставка", "цена", "стоимость",
    "бюджет", "клиент", "компания", "команда", "офис", "коллеги", "директор", "менеджер",
    "руководитель", "сотрудник", "задача", "задачи", "решение", "проблема", "ошибка", "изменения",
    "версия", "система", "сервер", "доступ", "пароль", "пользователь", "безопасность", "ссылка",
    "страница", "сайт", "адрес", "телефон", "номер", "город", "улица", "поезд", "рейс", "гостиница",
    "поездка", "отпуск", "выходные", "семья", "дети", "дом", "погода", "кофе", "обед", "ужин",
    "вечер", "утро", "лето", "зима", "весна", "осень", "январь", "март", "апрель", "май", "июнь",
    "сентябрь", "декабрь", "новый", "новая", "новое", "большой", "маленький", "хороший", "хорошо",
    "важно", "важный", "последний", "первый", "следующий", "возможно", "готов", "готово", "срочно",
    "быстро", "вместе", "здесь", "сейчас", "потом", "скоро", "рано", "поздно", "всегда", "никогда",
    "часто", "иногда", "снова", "опять", "после", "перед", "между", "через", "без", "под", "над",
    "около", "вместо", "кроме", "чтобы", "потому", "поэтому", "также", "однако", "конечно",
    "например", "наверное", "кажется", "сделать", "сказать", "знать", "думать", "смотреть",
    "видеть", "хотеть", "прислать", "отправить", "получить", "ответить", "подтвердить", "проверить",
    "обсудить", "посмотреть", "позвонить", "написать", "прочитать", "начать", "закончить", "успеть",
    "договориться", "согласовать", "приложение", "вложение", "таблица", "презентация", "совещание",
    "план", "график", "срок", "сроки", "результат", "результаты", "данные", "информация", "пример",
    "причина", "часть", "случай", "место", "жизнь", "человек", "люди", "слово", "дело", "раз",
    "сторона", "друг", "конец", "вид", "сила", "вода", "окно", "машина", "деньги", "рублей",
    "университет", "студент", "курс", "экзамен", "исследование", "статья", "конференция", "доклад",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ко", "ра", "ми", "ст", "ов", "ение", "пре", "ва", "ло", "ни", "ть", "ск", "до", "бе", "за",
    "ру", "че", "ла", "го", "вер", "на", "тор", "ша", "лё", "сь", "ин", "по", "жи", "ры", "хо",
    "ем", "ку",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"Александр", "aleksandr"}, {"Сергей", "sergey"}, {"Дмитрий", "dmitry"}, {"Андрей", "andrey"},
    {"Алексей", "aleksey"}, {"Максим", "maksim"}, {"Иван", "ivan"}, {"Михаил", "mikhail"},
    {"Николай", "nikolay"}, {"Владимир", "vladimir"}, {"Павел", "pavel"}, {"Артём", "artem"},
    {"Фёдор", "fedor"}, {"Олег", "oleg"}, {"Игорь", "igor"}, {"Евгений", "evgeny"},
};
// clang-format on

// clang-format off
static const struct mkc_name given_female[] = {
    {"Ольга", "olga"}, {"Елена", "elena"}, {"Татьяна", "tatiana"}, {"Наталья", "natalia"},
    {"Ирина", "irina"}, {"Анна", "anna"}, {"Мария", "maria"}, {"Светлана", "svetlana"},
    {"Екатерина", "ekaterina"}, {"Юлия", "yulia"}, {"Анастасия", "anastasia"}, {"Алёна", "alena"},
    {"Ксения", "ksenia"}, {"Дарья", "daria"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"Иванов", "ivanov"}, {"Смирнов", "smirnov"}, {"Кузнецов", "kuznetsov"}, {"Попов", "popov"},
    {"Васильев", "vasiliev"}, {"Петров", "petrov"}, {"Соколов", "sokolov"},
    {"Михайлов", "mikhailov"}, {"Новиков", "novikov"}, {"Фёдоров", "fedorov"},
    {"Морозов", "morozov"}, {"Волков", "volkov"}, {"Алексеев", "alekseev"}, {"Лебедев", "lebedev"},
    {"Семёнов", "semenov"}, {"Егоров", "egorov"}, {"Павлов", "pavlov"}, {"Козлов", "kozlov"},
    {"Степанов", "stepanov"}, {"Николаев", "nikolaev"}, {"Орлов", "orlov"}, {"Андреев", "andreev"},
    {"Макаров", "makarov"}, {"Никитин", "nikitin"}, {"Захаров", "zakharov"}, {"Зайцев", "zaitsev"},
    {"Соловьёв", "soloviev"}, {"Борисов", "borisov"}, {"Яковлев", "yakovlev"},
    {"Григорьев", "grigoriev"},
};
// clang-format on

static const char *const domains[] = {"pochta.example", "yandex.example", "mail.example",
                                      "rambler.example", "zavod.example"};

static const char *const greetings[] = {"Здравствуйте, %s!", "Привет, %s!", "Добрый день, %s!",
                                        "%s, добрый день!", "Коллеги, добрый день!"};
static const char *const closings[] = {"С уважением,", "Спасибо,", "Всего доброго,",
                                       "Хорошего дня!", "До связи,"};
static const char *const titles[] = {"Руководитель проекта", "Инженер-программист",
                                     "Менеджер по продажам", "Главный бухгалтер",
                                     "Старший научный сотрудник"};
static const char *const original_labels[] = {"От:", "Отправлено:", "Кому:", "Тема:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {
    [MKC_CS_UTF_8] = 50, [MKC_CS_KOI8_R] = 35, [MKC_CS_WINDOWS_1251] = 15};

static const int tz_minutes[] = {180, 180, 180, 300, 420};

static const struct mkc_mailing_list lists[] = {
    {"razrabotka", "lists.pochta.example", "Razrabotka"},
    {"novosti", "lists.zavod.example", "Novosti zavoda"},
};

const struct mkc_lang_data mkc_lang_ru = {
    .code = "ru-RU",
    .label = "Russian",
    .spaced = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .given_female = MKC_COUNTED(given_female),
    .female_surname_suffix = "а",
    .female_surname_suffix_ascii = "a",
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "ООО \"Пример\"",
    .attribution = "%d.%m.%Y %H:%M, %n пишет:",
    .original_message = "-----Исходное сообщение-----",
    .original_labels = original_labels,
    .reply_prefix = "RE: ",
    .forward_prefix = "FW: ",
    .sentence_end = ".",
    .question_end = "?",
    .comma = ",",
    .quote_open = "«",
    .quote_close = "»",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
