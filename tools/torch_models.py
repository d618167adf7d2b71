"""The seed tutorials' models that torchvision lacks, as the PyTorch examples
define them (DCGAN generator, SuperResolution, word_language_model), plus the
seed's MyModule.  Used by tools/torch2trace.py (`--model NAME`)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DCGANGenerator(nn.Module):
    """pytorch/examples dcgan Generator (nz=100, ngf=64, nc=3) -> 64x64 images."""

    def __init__(self, nz=100, ngf=64, nc=3):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, x):
        return self.main(x)


class SuperResolutionNet(nn.Module):
    """The ONNX export tutorial's super-resolution net (pixel_shuffle)."""

    def __init__(self, upscale_factor=3):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))


class WordLanguageModel(nn.Module):
    """pytorch/examples word_language_model RNNModel('LSTM'), 2 layers, eval mode."""

    def __init__(self, ntoken=1000, ninp=64, nhid=64, nlayers=2):
        super().__init__()
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, input):
        emb = self.drop(self.encoder(input))
        output, _ = self.rnn(emb)
        output = self.drop(output)
        return F.log_softmax(self.decoder(output), dim=-1)


class MyFunction(torch.autograd.Function):
    """The seed's autograd Function computing x*x + y, exported through ATen."""

    @staticmethod
    def forward(ctx, x, y):
        return x * x + y

    @staticmethod
    def symbolic(g, x, y):
        x2 = g.at("mul", x, x)
        return g.at("add", x2, y)


class MyModule(nn.Module):
    """The seed's MyModule: ReLU, then MyFunction."""

    def forward(self, x, y):
        x = nn.ReLU()(x)
        return MyFunction.apply(x, y)


# name -> (constructor, default input specs)
MODELS = {
    "dcgan": (DCGANGenerator, ["1,100,1,1"]),
    "superres": (SuperResolutionNet, ["1,1,32,32"]),
    "word_language_model": (WordLanguageModel, ["8,2:int64"]),
    "mymodule": (MyModule, ["3,4", "3,4"]),
}


class Fn(nn.Module):
    """A function of tensors as a module, to trace or export it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)
