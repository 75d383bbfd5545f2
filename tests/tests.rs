mod inspect;
