mod sdk;
